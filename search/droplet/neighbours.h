// A program's neighbours in its own parameter space (program_space.h), as
// both searches that exploit a measured program take them: Droplet's
// descent from its center, and the ansor policy's share of each round
// around its best measured program (SketchPolicyOptions::best_neighbour_share).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "search/annotation/annotation.h"
#include "search/droplet/program_space.h"
#include "search/shared_cost_model.h"

namespace tuneforge::search {

struct NeighbourPrograms {
  std::vector<schedule::State> single;   // one knob moved
  std::vector<schedule::State> several;  // several knobs moved
};

// The points `step` away from `center` (Neighbours, at most `limit`) that
// replay, are not in `seen` and fit the target: within a GPU block's limits,
// accumulators within the register file. Those that do not are skipped,
// never measured.
NeighbourPrograms FreshNeighbours(const ProgramSpace& space, const SpacePoint& center, int step, int limit,
                                  const HardwareParams& hw, const absl::flat_hash_set<uint64_t>& seen, Rng& rng);

// Those of `states` that lower (features extract), the model's best scored
// first; in the given order while the model is untrained. `scored`, when
// given, is set to the number the model scored.
std::vector<schedule::State> RankByModel(std::vector<schedule::State> states, const SharedCostModel& model,
                                         int64_t* scored = nullptr);

}  // namespace tuneforge::search
