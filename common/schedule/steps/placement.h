// Which compute locations are valid. A stage placed in loop L of stage T
// (compute_at) must be computed before each of its consumers reads it:
// every consumer (looking through inlined stages) must be T itself or be
// computed inside T at or below L. Outputs stay at root; a stage cannot be
// placed in an inlined stage (no loops) or, through others, in itself.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "common/schedule/state.h"

namespace tuneforge::schedule {

// The non-inlined stages that read `stage`, directly or through a chain of
// inlined stages, in stage order.
std::vector<int> ConsumersThroughInlined(const State& state, int stage);

// OK, or an error whose message (without a step prefix) says why the
// placement of `stage` is invalid and what to do.
absl::Status CheckPlacement(const State& state, int stage);
// CheckPlacement for every stage: steps that move or remove loops use it to
// make sure no other stage is left in an impossible place.
absl::Status CheckAllPlacements(const State& state);

}  // namespace tuneforge::schedule
