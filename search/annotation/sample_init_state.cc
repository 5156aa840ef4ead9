#include "search/annotation/annotation.h"

namespace tuneforge::search {
namespace {

// Tile sizes are drawn within the block's budgets, but shared memory is
// only known once bound: a sketch whose every draw overflows it (a tiny
// limit) is refused after this many.
constexpr int kGpuTileDraws = 64;
// CPU draws until the accumulators fit the register file (register_tile.cc):
// two in three of a strided depthwise conv's or a 7x7 conv's draws do not
// (three draws a sample on average), and 32 fail together about once in
// 10^5 samples; that one is kept as drawn.
constexpr int kCpuTileDraws = 32;

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
  absl::StatusOr<schedule::State> state = absl::UnknownError("no draw");
  for (int draw = 0; draw < kCpuTileDraws; ++draw) {
    state = FillTileSizes(sketch, hw, rng);
    if (!state.ok()) return state.status();
    ChangeComputeLocations(&*state, rng);
    AnnotateVectorize(&*state, hw, rng);
    if (WithinRegisterFile(*state, hw)) break;
  }
  AnnotateAutoUnroll(&*state, hw, rng);
  AnnotateParallel(&*state, hw);
  return state;
}

}  // namespace tuneforge::search
