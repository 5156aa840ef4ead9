// Questions the sketch rules ask about a stage of a state. They read the
// state's current DAG (cache and rfactor stages included) and its compute
// locations (an inlined stage passes its reads on to its consumers).
#pragma once

#include <cstdint>
#include <vector>

#include "common/schedule/state.h"

namespace tuneforge::search {

bool IsInlined(const schedule::State& state, int stage);
// Stages that read `stage`, looking through inlined consumers to the stages
// they were inlined into. Sorted, without duplicates.
std::vector<int> EffectiveConsumers(const schedule::State& state, int stage);
// The one consumer that reads `stage` element-wise (through inlined
// element-wise stages too) and whose loops are still untransformed, so it
// can be tiled to match `stage`; -1 when there is none or more than one.
int SingleElementwiseConsumer(const schedule::State& state, int stage);
bool NeedsMultiLevelTiling(const schedule::State& state, int stage);
// `stage` is a cache stage "<name>.local" made by cache_write (its original,
// now a copy, is stage + 1), or an original whose cache stage is stage - 1.
bool IsCacheWriteStage(const schedule::State& state, int stage);
bool HasCacheWriteStage(const schedule::State& state, int stage);
// `stage` is a copy "<name>.local" made by cache_read of stage - 1.
bool IsCacheReadStage(const schedule::State& state, int stage);
// Some input of `stage` is such a copy (the stage's input was packed).
bool ReadsCacheReadStage(const schedule::State& state, int stage);
// `stage` is such a copy of a constant placeholder or of a precomputed
// constant (below): a packed weight, Winograd's transformed one included.
bool IsConstantCopy(const schedule::State& state, int stage);
// `stage` is computed from constant placeholders alone (through the stages
// it reads) and is not such a copy: a CPU program's layout rewrite computes
// it once, before the first call, over its definition's own axes
// (common/lower/hoist_constants.h), so no schedule of it changes the kernel:
// Winograd's kernel transform. On a CPU sketches and annotation leave it at
// root untouched, and the search spends no steps on it.
bool IsPrecomputedConstant(const schedule::State& state, int stage);
// Spatial axes of `stage` (its last excepted) that a constant weight's read
// varies along while no other input's does: a conv's output channels
// (W[k, c, r, s] varies with k, the data does not). With such an axis
// innermost in the register tile, the (packed) weight loads as vectors and
// the data broadcasts, where the last axis may be too short to fill a vector
// (a 14-wide row). A cache-read copy of a constant counts as the constant.
std::vector<int> WeightVectorAxes(const schedule::State& state, int stage);
// `axis` of the stage's op (spatial, then reduction) indexes a constant
// matrix (te::OpAnalysis::constant_index_axes).
bool IsConstantIndexAxis(const te::OpAnalysis& a, int axis);
// An untouched computed stage that indexes a constant matrix, every axis of
// its reduction among those that do: a transform simplify_const_tensor
// tiles (a reduction that does not index the matrix would need tiling of
// its own).
bool IsConstantMatrixTransform(const schedule::State& state, int stage);
// A computed stage no rule has touched yet: not inlined, loops untransformed,
// no cache-write stage on either side (what rfactor-like rules start from).
bool IsUntouchedComputeStage(const schedule::State& state, int stage);
// The stage's output rows (its op's last spatial axis, the contiguous
// one) are shorter than a vector of `vector_lanes`: every vector along
// them is partial (a 14-wide row on AVX-512); so is a scalar output's.
bool RowsShorterThanAVector(const schedule::State& state, int stage, int vector_lanes);
// Products of the extents of the stage's op's spatial and reduction axes.
int64_t SpatialSize(const schedule::State& state, int stage);
int64_t ReductionSize(const schedule::State& state, int stage);
// The stage's loops were split, fused, reordered, annotated or given a
// pragma (schedule::LoopTransforms).
bool IsTransformed(const schedule::State& state, int stage);

}  // namespace tuneforge::search
