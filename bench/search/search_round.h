// The search side of one round of the Ansor policy: sample the initial
// population, evolve 2048 programs for 4 generations under a trained XGBoost
// model, pick 64 — what the server spends between two measured batches.
#pragma once

#include <string>

namespace tuneforge::bench {

int RunSearchRoundBench(const std::string& workload, bool json, int threads);

}  // namespace tuneforge::bench
