// Change compute location: a stage that no sketch rule placed (computed at
// root, untiled, with one consumer) is left at root or moved into a random
// loop around its consumer: the consumer's own loops, or those of the stages
// the consumer is computed inside (a packed panel shared by several tiles
// lives there), trading recomputation for locality.
#include "common/schedule/bound.h"
#include "search/annotation/annotation.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {

std::vector<schedule::ComputeAtStep> ComputeAtChoices(const schedule::State& state, int stage) {
  std::vector<int> consumers = EffectiveConsumers(state, stage);
  if (consumers.size() != 1) return {};
  const int consumer = consumers[0];
  std::vector<schedule::ComputeAtStep> out;
  for (auto [target, node] : schedule::EnclosingLoops(state, consumer))
    if (int iter = state.stage(target).IterIndexOfNode(node); iter >= 0)
      out.push_back(schedule::ComputeAtStep{stage, target, iter});
  const int n = static_cast<int>(state.stage(consumer).iters.size());
  for (int i = 0; i < n; ++i) out.push_back(schedule::ComputeAtStep{stage, consumer, i});
  return out;
}

void ChangeComputeLocations(schedule::State* state, Rng& rng) {
  for (int s = state->num_stages() - 1; s >= 0; --s) {
    const schedule::Stage& st = state->stage(s);
    if (st.is_placeholder() || !std::holds_alternative<schedule::ComputeRoot>(st.location) ||
        state->dag()->analysis(s).is_output || IsTransformed(*state, s))
      continue;
    std::vector<schedule::ComputeAtStep> choices = ComputeAtChoices(*state, s);
    if (choices.empty()) continue;
    // One more choice: stay at root.
    const size_t pick = std::uniform_int_distribution<size_t>(0, choices.size())(rng);
    if (pick == choices.size()) continue;
    (void)state->Apply(choices[pick]);  // refused: stays at root
  }
}

}  // namespace tuneforge::search
