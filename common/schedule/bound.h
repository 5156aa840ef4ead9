// Bound inference on a State: a stage computed inside another stage's loop
// (compute_at) computes only the part of its output that its consumers read
// during one iteration of that loop. InferBound sets the extents of such a
// stage's axes to that region's size and recomputes its derived iterators,
// so that later steps (split, fuse, ...) see the real loop sizes, as in
// Ansor. Lowering uses InferRegions for the symbolic start of each region.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/schedule/state.h"
#include "common/te/expr.h"

namespace tuneforge::schedule {

// One variable per (stage, iterator node): vars[stage][node]. Only the
// leaves' variables are loop variables; the others are unused.
using LoopVars = std::vector<std::vector<te::Var>>;
LoopVars MakeLoopVars(const State& state);

// The part of a stage's output that is computed where the stage is placed:
// dimension d covers [min[d], min[d] + extent[d]). `min` is an expression of
// the loop variables of the loops enclosing the stage (0 at root).
struct Region {
  std::vector<te::Expr> min;
  std::vector<int64_t> extent;
};

// Loops enclosing a stage's computation, outermost first, as
// (stage, iterator node) pairs.
using LoopPath = std::vector<std::pair<int, int>>;
LoopPath EnclosingLoops(const State& state, int stage);

// Regions of every stage (empty for placeholders and inlined stages).
// Errors: a stage placed where one of its consumers cannot see it.
absl::StatusOr<std::vector<Region>> InferRegions(const State& state, const LoopVars& vars);

// Recomputes the extents of every stage's iterator nodes: stages at root
// get their op's shape; attached stages get the region their consumers
// need; split remainders and fused nodes follow.
absl::Status InferBound(State* state);

}  // namespace tuneforge::schedule
