// What the policy tests build their policies from: a small target and a
// cost model that trains on one thread (ctest runs test binaries side by
// side).
#pragma once

#include <memory>

#include "search/search_task.h"
#include "search/shared_cost_model.h"
#include "search/sketch_policy.h"

namespace tuneforge::search::testing {

// One core, 16 float lanes and 32 vector registers (AVX-512), auto-unroll
// among {0, 16, 64}.
HardwareParams OneCore();

// XGBoost behind a shared model, trained on one thread.
std::shared_ptr<SharedCostModel> OneThreadXGBoost();

// Ansor's policy at test size: 64 samples a round, a population of 128
// evolved for `generations`, otherwise Ansor's defaults.
SketchPolicyOptions SmallAnsorOptions(int generations);

}  // namespace tuneforge::search::testing
