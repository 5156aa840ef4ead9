#include "search/annotation/annotation.h"

namespace tuneforge::search {

absl::StatusOr<schedule::State> SampleInitState(const schedule::State& sketch, const HardwareParams& hw,
                                                Rng& rng) {
  absl::StatusOr<schedule::State> state = FillTileSizes(sketch, hw, rng);
  if (!state.ok()) return state.status();
  ChangeComputeLocations(&*state, rng);
  AnnotateVectorize(&*state, hw, rng);
  AnnotateAutoUnroll(&*state, hw, rng);
  AnnotateParallel(&*state, hw);
  return state;
}

}  // namespace tuneforge::search
