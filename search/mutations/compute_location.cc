// Compute-location mutation: a stage placed by annotation (one that was not
// split: tiled stages keep the place their sketch gave them) moves to
// another loop of the same consumer.
#include "search/mutations/mutations.h"

namespace tuneforge::search {

absl::StatusOr<schedule::State> MutateComputeLocation(const schedule::State& state, Rng& rng) {
  const auto& steps = state.steps();
  std::vector<size_t> candidates;
  for (size_t i : StepsOfKind<schedule::ComputeAtStep>(state)) {
    const int stage = std::get<schedule::ComputeAtStep>(steps[i]).stage;
    bool split = false;
    for (size_t j = 0; j < i && !split; ++j)
      split = std::holds_alternative<schedule::SplitStep>(steps[j]) && schedule::StepStage(steps[j]) == stage;
    if (!split) candidates.push_back(i);
  }
  if (candidates.empty()) return absl::NotFoundError("no compute_at to mutate");
  size_t index = candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng)];
  schedule::ComputeAtStep at = std::get<schedule::ComputeAtStep>(steps[index]);
  absl::StatusOr<schedule::State> before = Prefix(state, index);
  if (!before.ok()) return before.status();
  const int n = static_cast<int>(before->stage(at.target_stage).iters.size());
  if (n < 2) return absl::NotFoundError("the consumer has one loop only");
  int pick = std::uniform_int_distribution<int>(0, n - 2)(rng);
  if (pick >= at.target_iter) ++pick;
  at.target_iter = pick;
  return ReplaceStepAfter(*before, state, index, at);
}

}  // namespace tuneforge::search
