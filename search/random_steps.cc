#include "search/random_steps.h"

#include <algorithm>
#include <numeric>

namespace tuneforge::search {
namespace {

using schedule::IterAnnotation;
using schedule::IterKind;
using schedule::State;
using schedule::Step;

class Proposer {
 public:
  Proposer(const State& state, std::mt19937_64& rng) : s_(state), rng_(rng) {}

  // A random step of kind `kind`, or nullopt when the state has nothing
  // that kind could apply to.
  std::optional<Step> Propose(int kind) {
    int stage = RandomComputeStage();
    if (stage < 0) return std::nullopt;
    const schedule::Stage& st = s_.stage(stage);
    int n = static_cast<int>(st.iters.size());
    switch (kind) {
      case 0: {  // split
        if (n == 0) return std::nullopt;
        int it = Uniform(0, n - 1);
        int64_t extent = st.iter_node(it).extent;
        std::vector<int64_t> lengths(Uniform(1, 3));
        for (int64_t& l : lengths) l = RandomFactor(extent);
        return schedule::SplitStep{stage, it, lengths, Coin()};
      }
      case 1: {  // follow_split
        std::vector<int> splits = EarlierSteps(0);
        if (splits.empty() || n == 0) return std::nullopt;
        int src = Pick(splits);
        int len = static_cast<int>(std::get<schedule::SplitStep>(s_.steps()[src]).lengths.size());
        return schedule::FollowSplitStep{stage, Uniform(0, n - 1), src, Uniform(1, len)};
      }
      case 2: {  // follow_fused_split
        std::vector<int> splits = EarlierSteps(0);
        if (splits.empty() || n == 0) return std::nullopt;
        std::vector<int> src;
        for (int k = Uniform(1, 2); k > 0; --k) src.push_back(Pick(splits));
        int level = Uniform(0, 1);
        return schedule::FollowFusedSplitStep{stage, Uniform(0, n - 1), src, level, Coin()};
      }
      case 3: {  // reorder
        std::vector<int> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng_);
        return schedule::ReorderStep{stage, order};
      }
      case 4: {  // fuse
        if (n == 0) return std::nullopt;
        int first = Uniform(0, n - 1), count = Uniform(1, std::min(3, n - first));
        std::vector<int> iters(count);
        std::iota(iters.begin(), iters.end(), first);
        return schedule::FuseStep{stage, iters};
      }
      case 5: {  // annotation
        if (n == 0) return std::nullopt;
        static constexpr IterAnnotation kCpu[] = {IterAnnotation::kParallel, IterAnnotation::kVectorize,
                                                  IterAnnotation::kUnroll, IterAnnotation::kVThread};
        return schedule::AnnotationStep{stage, Uniform(0, n - 1), kCpu[Uniform(0, 3)]};
      }
      case 6: {  // pragma
        static constexpr int64_t kSteps[] = {0, 4, 16, 64, 512};
        return schedule::PragmaStep{stage, 0, kSteps[Uniform(0, 4)]};
      }
      case 7: {  // storage_align
        if (n == 0) return std::nullopt;
        int64_t factor = Uniform(1, 16);
        return schedule::StorageAlignStep{stage, Uniform(0, n - 1), factor, Uniform(0, factor - 1)};
      }
      case 8: {  // compute_at: a consumer and one of its loops
        const auto& consumers = s_.dag()->analysis(stage).consumers;
        if (consumers.empty()) return std::nullopt;
        int target = Pick(consumers);
        int tn = static_cast<int>(s_.stage(target).iters.size());
        if (tn == 0) return std::nullopt;
        return schedule::ComputeAtStep{stage, target, Uniform(0, tn - 1)};
      }
      case 9: return schedule::ComputeRootStep{stage};
      case 10: return schedule::ComputeInlineStep{stage};
      case 11: {  // cache_read of any stage (placeholders included) for some readers
        int src = Uniform(0, s_.num_stages() - 1);
        const auto& consumers = s_.dag()->analysis(src).consumers;
        if (consumers.empty()) return std::nullopt;
        std::vector<int> readers;
        for (int c : consumers)
          if (Coin() || readers.empty()) readers.push_back(c);
        return schedule::CacheReadStep{src, Coin() ? "local" : "shared", readers};
      }
      case 12: return schedule::CacheWriteStep{stage, "local"};
      case 13: {  // rfactor of a reduction iterator
        std::vector<int> reduce;
        for (int i = 0; i < n; ++i)
          if (st.iter_node(i).kind == IterKind::kReduce) reduce.push_back(i);
        if (reduce.empty()) return std::nullopt;
        return schedule::RfactorStep{stage, Pick(reduce), Uniform(0, st.num_spatial_axes())};
      }
    }
    return std::nullopt;
  }

 private:
  int Uniform(int64_t lo, int64_t hi) {
    return static_cast<int>(std::uniform_int_distribution<int64_t>(lo, hi)(rng_));
  }
  bool Coin() { return Uniform(0, 1) == 1; }
  int Pick(const std::vector<int>& v) { return v[Uniform(0, static_cast<int64_t>(v.size()) - 1)]; }

  // Mostly divisors (what a search would pick), sometimes anything.
  int64_t RandomFactor(int64_t extent) {
    if (Uniform(0, 3) == 0) return Uniform(1, extent + 2);
    std::vector<int> divisors;
    for (int64_t d = 1; d <= extent; ++d)
      if (extent % d == 0) divisors.push_back(static_cast<int>(d));
    return Pick(divisors);
  }

  int RandomComputeStage() {
    std::vector<int> compute;
    for (int i = 0; i < s_.num_stages(); ++i)
      if (!s_.stage(i).is_placeholder()) compute.push_back(i);
    return compute.empty() ? -1 : Pick(compute);
  }

  std::vector<int> EarlierSteps(int kind) {
    std::vector<int> out;
    for (int i = 0; i < static_cast<int>(s_.steps().size()); ++i)
      if (static_cast<int>(s_.steps()[i].index()) == kind) out.push_back(i);
    return out;
  }

  const State& s_;
  std::mt19937_64& rng_;
};

}  // namespace

State RandomSchedule(const te::ComputeDagPtr& dag, std::mt19937_64& rng, int attempts,
                     RandomScheduleStats* stats) {
  State state(dag);
  for (int a = 0; a < attempts; ++a) {
    int kind = static_cast<int>(std::uniform_int_distribution<int>(0, kNumStepKinds - 1)(rng));
    std::optional<Step> step = Proposer(state, rng).Propose(kind);
    if (!step) continue;
    ++stats->proposed[kind];
    if (state.Apply(*step).ok()) ++stats->accepted[kind];
  }
  return state;
}

}  // namespace tuneforge::search
