// Random annotation (Ansor section 4.2): turns a sketch into a complete,
// valid program by sampling every decision the sketch left open. Each
// function here is one annotation rule, in its own file; SampleInitState
// applies them in the order below, which matters: compute locations move
// stages into loops that vectorize and parallel then must not fuse away,
// and the parallel fuse comes last for each stage so that mutating its
// granularity (mutations/) changes no later step's loop indices.
//
// Every step goes through State::Apply: a step the state refuses is not
// taken, so every sampled state replays.
#pragma once

#include <random>

#include "absl/status/statusor.h"
#include "common/schedule/state.h"
#include "search/search_task.h"

namespace tuneforge::search {

using Rng = std::mt19937_64;

// The sketch's steps replayed with every split given random lengths: a
// random factorization of the loop's extent, the innermost length within
// InnermostLimit (tile_lengths.h: Ansor's 64, but not for a CPU reduction).
absl::StatusOr<schedule::State> FillTileSizes(const schedule::State& sketch, const HardwareParams& hw,
                                              Rng& rng);
// Stages left at root and untiled (rfactor partials, non-inlinable
// producers, packed copies) are computed at root or at a random loop around
// their consumer (ComputeAtChoices).
void ChangeComputeLocations(schedule::State* state, Rng& rng);
// Where `stage` may be computed: every loop of its single consumer, and the
// loops enclosing the consumer where it is computed inside another stage,
// outermost first. Empty when the stage has no single consumer.
std::vector<schedule::ComputeAtStep> ComputeAtChoices(const schedule::State& state, int stage);
// The innermost spatial loops of each stage (a random number of them, as
// long as their extents multiply to at most hw.max_vectorize_extent) are
// fused and vectorized.
void AnnotateVectorize(schedule::State* state, const HardwareParams& hw, Rng& rng);
// Tiled or reducing stages get an auto-unroll pragma from
// hw.auto_unroll_configs.
void AnnotateAutoUnroll(schedule::State* state, const HardwareParams& hw, Rng& rng);
// The outer spatial loops of each root stage are fused (until they offer
// hw.parallel_iters_per_core iterations per core) and run in parallel.
void AnnotateParallel(schedule::State* state, const HardwareParams& hw);

// GPU: like FillTileSizes, with the levels of SSSRRSRS tiling drawn within
// the block's budgets (threads, vthreads, registers, fetch depth).
absl::StatusOr<schedule::State> FillGpuTileSizes(const schedule::State& sketch, const HardwareParams& hw,
                                                 Rng& rng);
// GPU: every root stage's loops bound to blocks, vthreads and threads
// (gpu_thread_binding.cc). An error names a stage it cannot bind.
absl::Status BindGpuThreads(schedule::State* state, const HardwareParams& hw);
// The state's thread and vthread loops, its shared-memory copies and each
// thread's accumulators (hw.max_local_tile) are within hw's limits.
bool WithinGpuLimits(const schedule::State& state, const HardwareParams& hw);

// CPU: the vector registers (of hw.vector_lanes) holding the accumulators
// `stage` updates inside its innermost reduction loop of extent > 1: the
// product of the spatial loops below it, a vectorized one counted in
// registers. 0 for a stage that reduces nothing.
int64_t AccumulatorRegisters(const schedule::Stage& stage, int vector_lanes);
// Every stage's accumulators fit in hw.vector_registers (register_tile.cc);
// always true on a GPU.
bool WithinRegisterFile(const schedule::State& state, const HardwareParams& hw);

// All of the above, in order. On a GPU (hw.gpu): tile sizes (redrawn until
// the program fits hw's limits), thread binding, auto-unroll. On a CPU, tile
// sizes, compute locations and vector marks are redrawn until the
// accumulators fit the register file (at most 32 draws; then the last draw
// is returned).
absl::StatusOr<schedule::State> SampleInitState(const schedule::State& sketch, const HardwareParams& hw,
                                                Rng& rng);

// How many of the outermost loops of `stage` the parallel annotation may
// fuse: spatial, unannotated, up to and including the first loop that has
// stages computed inside it. Mutations of the parallel granularity pick in
// 1..this.
int MaxParallelFuse(const schedule::State& state, int stage);
// Stages are computed inside loop `iter` of `stage`.
bool HasAttachedStages(const schedule::State& state, int stage, int iter);

}  // namespace tuneforge::search
