// Compute-location mutation: a stage placed by annotation (one that was not
// split: tiled stages keep the place their sketch gave them) moves to
// another of its places (annotation's ComputeAtChoices).
#include "search/annotation/annotation.h"
#include "search/mutations/mutations.h"

namespace tuneforge::search {

absl::StatusOr<schedule::State> MutateComputeLocation(const schedule::State& state, Rng& rng) {
  const auto& steps = state.steps();
  std::vector<size_t> candidates;
  for (size_t i : StepsOfKind<schedule::ComputeAtStep>(state))
    if (!SplitBefore(steps, i, std::get<schedule::ComputeAtStep>(steps[i]).stage)) candidates.push_back(i);
  if (candidates.empty()) return absl::NotFoundError("no compute_at to mutate");
  size_t index = candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng)];
  const schedule::ComputeAtStep at = std::get<schedule::ComputeAtStep>(steps[index]);
  absl::StatusOr<schedule::State> before = Prefix(state, index);
  if (!before.ok()) return before.status();
  std::vector<schedule::ComputeAtStep> others;
  for (const schedule::ComputeAtStep& c : ComputeAtChoices(*before, at.stage))
    if (c.target_stage != at.target_stage || c.target_iter != at.target_iter) others.push_back(c);
  if (others.empty()) return absl::NotFoundError("the stage has no other place to go");
  return ReplaceStepAfter(*before, state, index,
                          others[std::uniform_int_distribution<size_t>(0, others.size() - 1)(rng)]);
}

}  // namespace tuneforge::search
