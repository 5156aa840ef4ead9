// Evolutionary search (Ansor section 5.2): a population of complete programs
// evolves under the cost model's scores. Each generation: score every
// program (features + model), remember the best unmeasured ones, then breed
// the next generation by fitness-proportional selection, mostly mutations
// and a few crossovers.
//
//   init (sampled + best measured) ─► score ─► keep best ─► select, mutate,
//        ▲                                                  cross over
//        └──────────────────── generations times ◄──────────┘
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "common/schedule/state.h"
#include "search/mutation_choice/mutation_predictor.h"
#include "search/search_task.h"
#include "search/shared_cost_model.h"

namespace tuneforge::search {

struct EvolutionOptions {
  int population = 2048;
  int generations = 4;
  double crossover_ratio = 0.05;
  // Relative weights of tile size, parallel, auto-unroll, compute location.
  std::vector<double> mutation_weights = {0.6, 0.15, 0.15, 0.1};
  // Learned mutation choice: each parent's rule is drawn by the predictor's
  // weights for it, and the search reports what each rule did; null: the
  // fixed weights above.
  const MutationPredictor* mutation_predictor = nullptr;
  int threads = 0;  // feature extraction and breeding; 0: the machine's cores
};

struct ScoredState {
  schedule::State state;
  float score = 0;
  // With a mutation predictor: the rule that made this program from its
  // parent (-1: sampled, measured or a crossover), the parent's hash and
  // FeatureSummary, so a measurement can tell whether the rule paid.
  int mutation = -1;
  uint64_t parent_hash = 0;
  std::vector<float> parent_summary = {};
};

struct EvolutionStats {
  int64_t scored = 0;         // programs scored over all generations
  int64_t reused = 0;         // programs met again, their score reused
  int64_t invalid = 0;        // children that did not replay or lower
  int64_t mutations = 0;
  int64_t crossovers = 0;
  double feature_seconds = 0;
  double predict_seconds = 0;
  double breed_seconds = 0;
};

// The best `out_size` distinct programs seen over all generations whose
// hash is not in `exclude`, best score first. With a mutation predictor,
// `outcomes` (when not null) receives what each mutation did: whether the
// child scored above its parent (a child that failed did not).
std::vector<ScoredState> EvolutionarySearch(const std::vector<schedule::State>& init,
                                            const SharedCostModel& model, const HardwareParams& hw,
                                            const absl::flat_hash_set<uint64_t>& exclude, int out_size,
                                            const EvolutionOptions& options, uint64_t seed,
                                            EvolutionStats* stats,
                                            std::vector<MutationOutcome>* outcomes = nullptr);

}  // namespace tuneforge::search
