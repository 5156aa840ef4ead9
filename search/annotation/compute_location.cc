// Change compute location: a stage that no sketch rule placed (computed at
// root, untiled, with one consumer) is left at root or moved into a random
// loop of its consumer, trading recomputation for locality.
#include "search/annotation/annotation.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {

void ChangeComputeLocations(schedule::State* state, Rng& rng) {
  for (int s = state->num_stages() - 1; s >= 0; --s) {
    const schedule::Stage& st = state->stage(s);
    if (st.is_placeholder() || !std::holds_alternative<schedule::ComputeRoot>(st.location) ||
        state->dag()->analysis(s).is_output || IsTransformed(*state, s))
      continue;
    std::vector<int> consumers = EffectiveConsumers(*state, s);
    if (consumers.size() != 1) continue;
    const int target = consumers[0];
    const int n = static_cast<int>(state->stage(target).iters.size());
    // Choice n: stay at root; 0..n-1: inside that loop of the consumer.
    int choice = std::uniform_int_distribution<int>(0, n)(rng);
    if (choice == n) continue;
    (void)state->Apply(schedule::ComputeAtStep{s, target, choice});  // refused: stays at root
  }
}

}  // namespace tuneforge::search
