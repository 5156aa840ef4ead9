// Ansor's search policy for one workload: sketches from the rules, random
// annotation for an initial population, evolutionary search under the
// target's shared cost model, epsilon-greedy picks, and retraining on every
// measured batch.
//
//   Propose(n): model untrained -> n random annotated sketches
//               otherwise       -> sample init population (+ best measured)
//                                  -> EvolutionarySearch -> best n(1-eps)
//                                     (optionally at most a share of them
//                                     from one tile family)
//                                  + n*eps random samples, none seen before
//               and none that lowers to code proposed before
//               (lowered_programs.h); optionally a share of the n(1-eps)
//               from the best measured program's neighbours
//               (best_neighbour_share, an eighth by default)
//               learned sketch selection: the n(1-eps) are shared among the
//               sketches by a bandit (sketch_selection/), one evolutionary
//               search per sketch over its own samples and measured programs;
//               the bandit is kept in the target's learned state
//               (learned_search_state.h), so later jobs go on from it
//               learned mutation choice: the evolution draws each parent's
//               rule by the target's mutation predictor and teaches it
//   Update(results) -> features of the measured programs -> model retrained
//                      (learned mutation choice: and the predictor, from
//                      children measured against their measured parents)
#pragma once

#include <memory>
#include <vector>

#include "search/evolutionary_search.h"
#include "search/lowered_programs.h"
#include "search/mutation_choice/mutation_choice.h"
#include "search/search_policy.h"
#include "search/shared_cost_model.h"
#include "search/sketch_selection/sketch_selection.h"

namespace tuneforge::search {

struct SketchPolicyOptions {
  EvolutionOptions evolution;
  int init_population = 512;   // annotated sketches sampled per round
  double measured_share = 0.2; // share of the init population taken from the best measured programs
  double eps_greedy = 0.05;    // share of each batch picked at random from the samples
  // Most of a batch's evolved picks from one tile family (tile_families.h);
  // 1: Ansor's (none), the default. 1/12 (5 of a 64-program round's 61)
  // lifted conv 3x3 tunings (five seeds: 0.87-1.18x -> 0.93-1.18x oneDNN)
  // but cost a matmul seed 1.04x -> 0.84x: not shown to win
  // (bench/search/results/family-quota-2026-11-29-zen3.txt).
  double max_family_share = 1.0;
  // Share of each batch taken from the best measured program's neighbours
  // in its own parameter space (droplet/neighbours.h), the model's best
  // first: one knob moved a step, then several; further steps once those
  // were all proposed. Not Ansor's: its evolution ranks every program by the
  // model alone, and a tuning can stop inside one family while the
  // neighbours of its best are never measured. 1/8 by default (0: Ansor's):
  // matmul 1024^3 tunings ended at or above oneDNN on 8 of 8 seeds (Ansor's
  // 5 of 6, one stopped at 0.94x); a conv 3x3 seed that stopped at 0.83x
  // with it had locked into a tiling along 14-wide rows, which the sketch
  // rules no longer derive, and since then conv 3x3 seeds 1-4 end as
  // without it (0.98-1.01x oneDNN, tuning bests 458-485 against 461-469
  // GFLOPS) and a depthwise conv as fast; on the stem (7x7 stride 2) it
  // held two seeds of three in a family of the same speed that compiles
  // twice as slowly (bench/search/results/best-neighbour-share-2026-12-06-
  // zen5.txt, neighbour-share-default-2026-12-06-zen5.txt,
  // neighbour-share-flag-2026-12-06-zen5.txt).
  double best_neighbour_share = kDefaultBestNeighbourShare;
  SketchSelection sketch_selection = SketchSelection::kUniform;
  MutationChoice mutation_choice = MutationChoice::kFixed;
};

struct SketchPolicyStats {
  int num_sketches = 0;
  int64_t sampled = 0;          // init states sampled, all rounds
  int64_t sample_failures = 0;  // samples that did not replay
  EvolutionStats evolution;     // summed over rounds
  double last_round_seconds = 0;  // Propose, search side only
  std::vector<int64_t> measured_per_sketch;  // programs measured, by sketch index
  std::vector<int64_t> searches_per_sketch;  // learned selection's evolutions of one sketch
  // Learned mutation choice: what the rules did, as the predictor was told.
  int64_t scored_mutation_outcomes = 0;    // child scored above / below its parent
  int64_t measured_mutation_outcomes = 0;  // child measured faster / slower than its measured parent
  // Programs not proposed: other steps for code proposed before, and
  // programs whose vector code scatters its stores (lowered_programs.h).
  int64_t lowered_copies = 0;
  int64_t scattering_skipped = 0;
  // Where a batch's programs came from: the evolution's ranking, or the
  // round's random samples (eps-greedy, all of a batch before the model
  // learns, and any shortfall of new code in the ranking).
  int64_t evolved_picks = 0;
  int64_t sampled_picks = 0;
  int64_t neighbour_picks = 0;  // neighbours of the best measured program
};

std::unique_ptr<SearchPolicy> MakeSketchPolicy(te::ComputeDagPtr dag, const HardwareParams& hw,
                                               std::shared_ptr<SharedCostModel> model, uint64_t seed,
                                               const SketchPolicyOptions& options = {},
                                               SketchPolicyStats* stats = nullptr,
                                               // shared with a policy that proposes too (droplet's descent); null: its own
                                               std::shared_ptr<LoweredPrograms> programs = nullptr);

}  // namespace tuneforge::search
