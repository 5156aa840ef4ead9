// Special compute location (Ansor's GPU rule, here for CPUs too): a stage
// that only gathers its single consumer's input, where that consumer had
// its constant-matrix axes unrolled (simplify_const_tensor), is computed
// inside the consumer's last loop before the unrolled ones: Winograd's
// input tile is then a (m+2) x (m+2) local array per tile and channel,
// filled right where the transform reads it, instead of a tensor the size
// of the whole transformed input.
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {
namespace {

// The consumer's first unrolled loop (> 0), or -1.
int FirstUnrolledLoop(const schedule::State& state, int consumer) {
  const schedule::Stage& st = state.stage(consumer);
  for (int i = 1; i < static_cast<int>(st.iters.size()); ++i)
    if (st.iters[i].annotation == schedule::IterAnnotation::kUnroll) return i;
  return -1;
}

// The one consumer of `stage` with constant-matrix axes, or -1.
int ConstantIndexConsumer(const schedule::State& state, int stage) {
  const std::vector<int> consumers = EffectiveConsumers(state, stage);
  if (consumers.size() != 1 || state.dag()->analysis(consumers[0]).constant_index_axes.empty()) return -1;
  return consumers[0];
}

class SpecialComputeLocationRule : public SketchRule {
 public:
  const char* name() const override { return "special_compute_location"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    const te::OpAnalysis& a = state.dag()->analysis(stage);
    if (a.is_placeholder || a.is_output || a.has_reduction || a.producers.empty() || IsInlined(state, stage) ||
        !IsUntouchedComputeStage(state, stage))
      return RuleDecision::kSkip;
    const int consumer = ConstantIndexConsumer(state, stage);
    if (consumer < 0 || FirstUnrolledLoop(state, consumer) < 0) return RuleDecision::kSkip;
    return RuleDecision::kApplyAndSkipRest;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    const int consumer = ConstantIndexConsumer(state, stage);
    schedule::State next = state;
    if (!next.Apply(schedule::ComputeAtStep{stage, consumer, FirstUnrolledLoop(state, consumer) - 1}).ok())
      return {};
    return {DerivedState{std::move(next), stage - 1, ""}};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeSpecialComputeLocationRule() {
  return std::make_unique<SpecialComputeLocationRule>();
}

}  // namespace tuneforge::search
