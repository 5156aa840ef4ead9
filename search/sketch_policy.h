// Ansor's search policy for one workload: sketches from the rules, random
// annotation for an initial population, evolutionary search under the
// target's shared cost model, epsilon-greedy picks, and retraining on every
// measured batch.
//
//   Propose(n): model untrained -> n random annotated sketches
//               otherwise       -> sample init population (+ best measured)
//                                  -> EvolutionarySearch -> best n(1-eps)
//                                  + n*eps random samples, none seen before
//   Update(results) -> features of the measured programs -> model retrained
#pragma once

#include <memory>

#include "search/evolutionary_search.h"
#include "search/search_policy.h"
#include "search/shared_cost_model.h"

namespace tuneforge::search {

struct SketchPolicyOptions {
  EvolutionOptions evolution;
  int init_population = 512;   // annotated sketches sampled per round
  double measured_share = 0.2; // share of the init population taken from the best measured programs
  double eps_greedy = 0.05;    // share of each batch picked at random from the samples
};

struct SketchPolicyStats {
  int num_sketches = 0;
  int64_t sampled = 0;          // init states sampled, all rounds
  int64_t sample_failures = 0;  // samples that did not replay
  EvolutionStats evolution;     // summed over rounds
  double last_round_seconds = 0;  // Propose, search side only
};

std::unique_ptr<SearchPolicy> MakeSketchPolicy(te::ComputeDagPtr dag, const HardwareParams& hw,
                                               std::shared_ptr<SharedCostModel> model, uint64_t seed,
                                               const SketchPolicyOptions& options = {},
                                               SketchPolicyStats* stats = nullptr);

}  // namespace tuneforge::search
