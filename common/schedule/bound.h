// Bound inference on a State: a stage computed inside another stage's loop
// (compute_at) computes only the part of its output that the consumers read
// in one iteration of that loop. This sets the extents of such a stage's
// axes to that region's size and recomputes its derived iterators, so that
// later steps (split, fuse, ...) see the real loop sizes, as in Ansor.
// Lowering uses the same analysis for the symbolic start of each region.
#pragma once

#include "absl/status/status.h"
#include "common/schedule/state.h"

namespace tuneforge::schedule {

// Recomputes the extents of every stage's iterator nodes: root axes of
// stages computed at root keep the op's shape; attached stages get the
// region their consumers need; split/fuse children follow their parents.
absl::Status InferBound(State* state);

}  // namespace tuneforge::schedule
