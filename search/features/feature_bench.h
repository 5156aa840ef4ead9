// A timing of feature extraction on a state like the ones the search
// scores: a 1024^3 matmul with Ansor's multi-level tiling (SSRSRS), a
// cache_write stage computed at the fused parallel outer loop, vectorized
// inner loops and an auto_unroll pragma.
#pragma once

#include "common/schedule/state.h"

namespace tuneforge::search {

// The state described above.
schedule::State FeatureBenchState();

// Mean seconds to lower and extract FeatureBenchState() `states` times on
// one thread (at least once).
double MeasureFeatureExtractionSeconds(int states);

}  // namespace tuneforge::search
