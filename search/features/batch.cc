// ExtractFeaturesBatch: states are handed out one at a time (ParallelFor),
// so uneven states (one big nest, many small ones) still balance; each
// result goes to its own slot, so no lock is needed.
#include "common/parallel_for.h"
#include "search/features/features.h"

namespace tuneforge::search {

std::vector<absl::StatusOr<ProgramFeatures>> ExtractFeaturesBatch(
    const std::vector<schedule::State>& states, int threads) {
  std::vector<absl::StatusOr<ProgramFeatures>> out(states.size(),
                                                   absl::UnknownError("not extracted"));
  ParallelFor(states.size(), threads, [&](size_t i) { out[i] = ExtractFeatures(states[i]); });
  return out;
}

}  // namespace tuneforge::search
