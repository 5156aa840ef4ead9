#include "search/annotation/annotation.h"

namespace tuneforge::search {
namespace {

// Tile sizes are drawn within the block's budgets, but shared memory is
// only known once bound: a sketch whose every draw overflows it (a tiny
// limit) is refused after this many.
constexpr int kGpuTileDraws = 64;

absl::StatusOr<schedule::State> SampleGpuInitState(const schedule::State& sketch, const HardwareParams& hw,
                                                   Rng& rng) {
  absl::Status last = absl::OkStatus();
  for (int draw = 0; draw < kGpuTileDraws; ++draw) {
    absl::StatusOr<schedule::State> state = FillGpuTileSizes(sketch, hw, rng);
    if (!state.ok()) return state.status();
    if (absl::Status bound = BindGpuThreads(&*state, hw); !bound.ok()) return bound;
    if (!WithinGpuLimits(*state, hw)) continue;
    AnnotateAutoUnroll(&*state, hw, rng);
    return state;
  }
  return absl::ResourceExhaustedError(
      "no tile sizes drawn keep the sketch within the GPU's shared memory, threads per block and vthreads");
}

}  // namespace

absl::StatusOr<schedule::State> SampleInitState(const schedule::State& sketch, const HardwareParams& hw,
                                                Rng& rng) {
  if (hw.gpu) return SampleGpuInitState(sketch, hw, rng);
  absl::StatusOr<schedule::State> state = FillTileSizes(sketch, hw, rng);
  if (!state.ok()) return state.status();
  ChangeComputeLocations(&*state, rng);
  AnnotateVectorize(&*state, hw, rng);
  AnnotateAutoUnroll(&*state, hw, rng);
  AnnotateParallel(&*state, hw);
  return state;
}

}  // namespace tuneforge::search
