// Property test: random steps, mostly invalid, on every test DAG. Nothing
// may crash; a rejected step leaves the state exactly as it was, and a
// replay of the list with it fails with the same error; every state built
// step by step replays (also through JSON) to the same state (a replay
// infers bounds once, at the end), and its extents are what bound inference
// says.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "common/schedule/bound.h"
#include "common/schedule/schedule_json.h"
#include "common/schedule/state.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

class RandomSteps {
 public:
  explicit RandomSteps(uint32_t seed) : rng_(seed) {}

  Step Next(const State& state) {
    const int stage = Int(-1, state.num_stages());
    int iters = 0;
    if (stage >= 0 && stage < state.num_stages())
      iters = static_cast<int>(state.stage(stage).iters.size());
    const int iter = Int(-1, iters);
    switch (Int(0, 13)) {
      case 0:
        return SplitStep{stage, iter, Lengths(), Int(0, 1) == 1};
      case 1:
        return FollowSplitStep{stage, iter, SrcStep(state), Int(0, 4)};
      case 2:
        return FollowFusedSplitStep{
            stage, iter, {SrcStep(state), SrcStep(state)}, Int(0, 2), Int(0, 1) == 1};
      case 3:
        return ReorderStep{stage, Permutation(iters)};
      case 4: {
        int first = Int(0, iters);
        std::vector<int> fused;
        for (int i = first; i < first + Int(1, 3); ++i) fused.push_back(i);
        return FuseStep{stage, fused};
      }
      case 5:
        return AnnotationStep{stage, iter, static_cast<IterAnnotation>(Int(0, 10))};
      case 6:
        return PragmaStep{stage, iter, Int(-1, 64)};
      case 7:
        return StorageAlignStep{stage, iter, Int(0, 8), Int(-1, 8)};
      case 8:
        return ComputeAtStep{stage, Int(0, state.num_stages()), Int(0, 4)};
      case 9:
        return ComputeRootStep{stage};
      case 10:
        return ComputeInlineStep{stage};
      case 11:
        return CacheReadStep{stage, Scope(), {Int(0, state.num_stages())}};
      case 12:
        return CacheWriteStep{stage, Scope()};
      default:
        return RfactorStep{stage, iter, Int(-1, 3)};
    }
  }

 private:
  // Mostly an earlier split step (what follow splits need), sometimes any.
  int SrcStep(const State& state) {
    std::vector<int> splits;
    for (int i = 0; i < static_cast<int>(state.steps().size()); ++i)
      if (std::holds_alternative<SplitStep>(state.steps()[i])) splits.push_back(i);
    if (splits.empty() || Int(0, 4) == 0) return Int(0, static_cast<int>(state.steps().size()));
    return splits[Int(0, static_cast<int>(splits.size()) - 1)];
  }
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::vector<int64_t> Lengths() {
    std::vector<int64_t> out(Int(0, 3));
    for (int64_t& l : out) l = Int(-1, 9);
    return out;
  }
  std::vector<int> Permutation(int n) {
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng_);
    if (n > 0 && Int(0, 9) == 0) order.back() = Int(-1, n);  // sometimes broken
    return order;
  }
  std::string Scope() {
    static const char* kScopes[] = {"global", "shared", "local", "texture"};
    return kScopes[Int(0, 3)];
  }

  std::mt19937 rng_;
};

TEST(RandomStepsTest, NeverCrashRejectCleanlyAndReplayExactly) {
  const std::vector<std::string> dags = {"matmul", "matmul_relu", "conv2d_pad",   "softmax",
                                         "chain",  "row_sum",     "two_axis_sum", "two_consumers"};
  int accepted = 0, rejected = 0;
  std::vector<int> accepted_by_kind(std::variant_size_v<Step>, 0);
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    const std::string& name = dags[seed % dags.size()];
    te::ComputeDagPtr dag = testing::DagByName(name);
    RandomSteps random(seed);
    State state(dag);
    for (int n = 0; n < 60; ++n) {
      Step step = random.Next(state);
      const std::string before = state.ToString();
      const uint64_t hash = state.Hash();
      absl::Status s = state.Apply(step);
      if (s.ok()) {
        ++accepted;
        ++accepted_by_kind[step.index()];
        for (int i = 0; i < state.num_stages(); ++i)
          ASSERT_EQ(state.stage(i).op, state.dag()->op(i)) << name << " seed " << seed;
        // Apply skips bound inference where it could change nothing: running
        // it now must indeed change nothing (else a later step saw stale
        // extents).
        State inferred = state;
        ASSERT_TRUE(InferBound(&inferred).ok()) << name << " seed " << seed;
        ASSERT_EQ(inferred.ToString(), state.ToString()) << name << " seed " << seed << " after "
                                                         << StepToString(step);
        continue;
      }
      ++rejected;
      ASSERT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
      // Replay infers bounds once at the end, not after each step: the list
      // with the rejected step still fails, with the error Apply gave.
      if (rejected % 8 == 0) {
        std::vector<Step> with_bad = state.steps();
        with_bad.push_back(step);
        absl::StatusOr<State> replayed = State::Replay(dag, with_bad);
        ASSERT_FALSE(replayed.ok()) << name << " seed " << seed << ": " << StepToString(step);
        ASSERT_EQ(replayed.status(), s) << name << " seed " << seed;
      }
      ASSERT_EQ(state.ToString(), before) << StepToString(step) << ": " << s;
      ASSERT_EQ(state.Hash(), hash);
    }
    Schedule schedule{kScheduleVersion, name, "", state.steps()};
    absl::StatusOr<Schedule> parsed = ParseScheduleJson(ScheduleToJsonText(schedule, -1));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    absl::StatusOr<State> replayed = State::Replay(dag, parsed->steps);
    ASSERT_TRUE(replayed.ok()) << name << " seed " << seed << ": " << replayed.status();
    EXPECT_EQ(replayed->ToString(), state.ToString()) << name << " seed " << seed;
    EXPECT_EQ(replayed->Hash(), state.Hash());
    EXPECT_EQ(replayed->dag()->canonical_text(), state.dag()->canonical_text());
  }
  // The generator must reach both outcomes often, or the test checks little.
  EXPECT_GT(accepted, 2000);
  EXPECT_GT(rejected, 5000);
  for (size_t k = 0; k < accepted_by_kind.size(); ++k)
    EXPECT_GT(accepted_by_kind[k], 0) << "no accepted step of variant index " << k;
  std::printf("accepted %d, rejected %d; per kind:", accepted, rejected);
  for (int n : accepted_by_kind) std::printf(" %d", n);
  std::printf("\n");
}

}  // namespace
}  // namespace tuneforge::schedule
