// Change compute location: a stage that no sketch rule placed (computed at
// root, untiled, with one consumer) is left at root or moved into a random
// loop around its consumer: the consumer's own loops, or those of the stages
// the consumer is computed inside (a packed panel shared by several tiles
// lives there), trading recomputation for locality.
#include <optional>

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

namespace {

// The consumer's innermost reduction loop among `choices`, or nullopt.
std::optional<schedule::ComputeAtStep> InnermostReduction(const schedule::State& state,
                                                          const std::vector<schedule::ComputeAtStep>& choices) {
  for (auto it = choices.rbegin(); it != choices.rend(); ++it)
    if (state.stage(it->target_stage).iter_node(it->target_iter).kind == schedule::IterKind::kReduce) return *it;
  return std::nullopt;
}

}  // namespace

void ChangeComputeLocations(schedule::State* state, Rng& rng) {
  for (int s = state->num_stages() - 1; s >= 0; --s) {
    const schedule::Stage& st = state->stage(s);
    if (st.is_placeholder() || !std::holds_alternative<schedule::ComputeRoot>(st.location) ||
        state->dag()->analysis(s).is_output || IsTransformed(*state, s) || IsPrecomputedConstant(*state, s))
      continue;
    std::vector<schedule::ComputeAtStep> choices = ComputeAtChoices(*state, s);
    if (choices.empty()) continue;
    // A copy of a constant weight (IsConstantCopy: B.local of a matmul with
    // B constant) is computed once by the layout rewrite, so its place costs
    // nothing per call and decides only its packed layout: one slice per
    // value of each loop above it that moves the region, the rest in the
    // copy's own order (common/lower/hoist_constants.h). In the consumer's
    // innermost reduction loop every loop orders the slices, so the tile
    // reads the weight as one contiguous stream (a 1024^3 matmul's 4x64
    // tile: 120 GFLOPS at one thread with B packed at that depth, 87-103
    // with it packed at the panel's loop and read with a 1 KB stride). Half
    // of its samples go there; the rest explore every place like any stage
    // (mutation moves it too).
    if (IsConstantCopy(*state, s) && std::bernoulli_distribution(0.5)(rng)) {
      if (auto deepest = InnermostReduction(*state, choices); deepest && state->Apply(*deepest).ok()) continue;
    }
    // One more choice: stay at root.
    const size_t pick = std::uniform_int_distribution<size_t>(0, choices.size())(rng);
    if (pick == choices.size()) continue;
    (void)state->Apply(choices[pick]);  // refused: stays at root
  }
}

}  // namespace tuneforge::search
