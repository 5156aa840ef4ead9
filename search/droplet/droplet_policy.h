// Droplet search (coordinate descent after a short Ansor phase): Ansor's
// search samples and evolves the first `after` trials; then the best
// measured program is exploited in its own parameter space
// (program_space.h):
//
//   center = best measured, step = 1
//   Propose(n): the neighbours of center at +-step that replay, lower and
//               were never measured (nor code they lower to,
//               lowered_programs.h): every single-knob move (the model's
//               best n if more), then the model's best moves of several
//               knobs (every combination, sampled) up to n
//   Update:     the fastest neighbour whose repeats are faster than
//               center's by Welch's t-test (p <= p_value over the round's
//               tests, Bonferroni) becomes center, step = 1;
//               no winner -> step + 1; no knob left to move at this step ->
//               back to Ansor's search (or stop, by option), and down again
//               from any program it finds faster than the last center
//
// Ansor's policy keeps learning from every measurement, so its cost model
// ranks the neighbours and the fallback starts warm.
#pragma once

#include <cstdint>
#include <memory>

#include "search/search_policy.h"
#include "search/shared_cost_model.h"
#include "search/sketch_policy.h"

namespace tuneforge::search {

struct DropletOptions {
  int after = 300;            // trials of Ansor's search before the descent
  double p_value = 0.05;      // a neighbour must win at this significance
  int neighbour_limit = 512;  // neighbours generated per round, before ranking
  bool stop_when_exhausted = false;  // else return to Ansor's search
};

struct DropletStats {
  bool descending = false;  // in the descent now
  int descents = 0;         // times the descent started from a best program
  int moves = 0;            // significant wins that moved the center
  int step = 0;             // the current step (descending)
  int knobs = 0;            // of the current center's space
  bool exhausted = false;   // the last descent tried every step without a win
  int64_t proposed = 0;     // neighbours proposed
  int64_t copies = 0;       // neighbours skipped: they lower to code proposed before, or scatter
};

std::unique_ptr<SearchPolicy> MakeDropletPolicy(te::ComputeDagPtr dag, const HardwareParams& hw,
                                                std::shared_ptr<SharedCostModel> model, uint64_t seed,
                                                const DropletOptions& options,
                                                const SketchPolicyOptions& ansor = {},
                                                DropletStats* stats = nullptr);

}  // namespace tuneforge::search
