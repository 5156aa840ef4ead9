// The loop edits both multi-level tiling rules share: split every loop of an
// untransformed stage into its levels and order the levels as a structure
// string says, and tile a consumer to follow a tiled producer.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/schedule/state.h"

namespace tuneforge::search {

// True when `structure` has only 'S' and 'R' and at least one 'S'.
bool IsValidTileStructure(const std::string& structure);

// Splits each spatial loop of `stage` into as many levels as `structure` has
// 'S' (each reduction loop: as many as it has 'R'), with placeholder lengths
// of 1 that annotation fills in, and reorders the loops level by level in
// structure order (SSRSRS: S0 S1 R0 S2 R1 S3). The innermost spatial level
// keeps the axes' order, or puts spatial axis `inner_axis` (>= 0) last (see
// WeightVectorAxes). Returns the index in the schedule of each spatial axis's
// split step.
absl::StatusOr<std::vector<int>> ApplyMultiLevelTiling(schedule::State* state, int stage,
                                                       const std::string& structure, int inner_axis = -1);

// Tiles the untransformed element-wise `consumer` like `producer`'s spatial
// splits (`producer_splits` from ApplyMultiLevelTiling) down to `level`
// levels, orders the outer levels outside, and computes `producer` inside the
// innermost of them.
absl::Status FuseIntoConsumer(schedule::State* state, int producer, int consumer,
                              const std::vector<int>& producer_splits, int level);

// Fuses loops first..first+count-1 of `stage` into one (nothing for fewer
// than two).
absl::Status FuseLoops(schedule::State* state, int stage, int first, int count);

// Fuses the reduction loops of an untransformed `stage` into one and splits
// it in two (inner length a placeholder 1 that annotation fills in): loops
// ns (outer) and ns + 1 (inner) then, ns the number of spatial axes. What
// rfactor and cross-thread reduction start from.
absl::Status FuseAndSplitReduction(schedule::State* state, int stage);

// The split steps (indices into the schedule) that multi-level tiling made
// of `stage`'s spatial axes, in axis order; empty when it was not tiled so.
// Found by replaying the steps: a stage's index shifts as cache stages are
// added, its name does not.
std::vector<int> MultiLevelTileSplits(const schedule::State& state, int stage);

// The last loop of `stage`'s outermost run of reduction loops (R0 of a
// tiling: the first loop of each reduction axis), or -1 without reduction.
int OutermostReductionTileEnd(const schedule::State& state, int stage);

}  // namespace tuneforge::search
