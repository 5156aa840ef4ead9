// The naive program on a GPU: what a GPU runs when nothing was tuned (the
// reference every GPU candidate is checked against on the device, and what
// `tuneforge show --target cuda` prints). Every stage that can be is
// inlined; each stage left is a kernel whose leading spatial loops are fused
// and split into blocks of threads (blockIdx.x, threadIdx.x; a partial last
// block is guarded). The GPU annotation binds untiled stages the same way.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/schedule/state.h"

namespace tuneforge::schedule {

// Fuses `stage`'s leading spatial, unannotated loops and splits them into
// blocks of at most `threads_per_block` threads. An error names a stage with
// no spatial loop (a full reduction).
absl::Status BindSpatialLoopsToThreads(State* state, int stage, int64_t threads_per_block);

// `naive` (no steps applied) with every strictly inlinable stage inlined and
// each root stage bound by BindSpatialLoopsToThreads.
absl::StatusOr<State> BindNaiveForGpu(const State& naive, int64_t threads_per_block);

}  // namespace tuneforge::schedule
