#include "search/random_search.h"

#include <random>

#include "absl/container/flat_hash_set.h"
#include "common/schedule/state.h"
#include "search/lowered_programs.h"
#include "search/random_steps.h"

namespace tuneforge::search {
namespace {

// Steps proposed per candidate: enough to reach tiled, parallel,
// vectorized loop nests, few enough that most states stay simple.
constexpr int kMinAttempts = 4;
constexpr int kMaxAttempts = 24;
// Consecutive duplicates after which the space counts as exhausted.
constexpr int kMaxDuplicateDraws = 200;

class RandomSearch : public SearchPolicy {
 public:
  RandomSearch(te::ComputeDagPtr dag, uint64_t seed) : dag_(std::move(dag)), rng_(seed) {}

  std::vector<std::vector<schedule::Step>> Propose(int n) override {
    std::vector<std::vector<schedule::Step>> out;
    int duplicates = 0;
    while (static_cast<int>(out.size()) < n && duplicates < kMaxDuplicateDraws) {
      int attempts = std::uniform_int_distribution<int>(kMinAttempts, kMaxAttempts)(rng_);
      RandomScheduleStats stats;
      schedule::State state = RandomSchedule(dag_, rng_, attempts, &stats);
      if (!seen_.insert(state.Hash()).second || !programs_.Add(state)) {
        ++duplicates;
        continue;
      }
      duplicates = 0;
      out.push_back(state.steps());
    }
    return out;
  }

  void Update(const std::vector<MeasuredCandidate>&) override {}  // random search does not learn

  void MarkMeasured(const std::vector<std::vector<schedule::Step>>& schedules) override {
    // AddMeasured replays them (to lower them); the step hashes need no replay.
    for (const auto& steps : schedules) seen_.insert(schedule::HashSteps(steps));
    programs_.AddMeasured(dag_, schedules, 0);
  }

 private:
  te::ComputeDagPtr dag_;
  std::mt19937_64 rng_;
  absl::flat_hash_set<uint64_t> seen_;
  LoweredPrograms programs_{/*gpu=*/false};  // random steps make CPU programs
};

}  // namespace

std::unique_ptr<SearchPolicy> MakeRandomSearch(te::ComputeDagPtr dag, uint64_t seed) {
  return std::make_unique<RandomSearch>(std::move(dag), seed);
}

}  // namespace tuneforge::search
