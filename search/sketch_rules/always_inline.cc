// Always inline: a cheap injective stage (padding, bias add, relu) that is
// not an output is substituted into its consumers; a buffer and a loop nest
// of its own would only cost memory traffic. A copy made by cache_read is
// kept: packing its input is why it is there.
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {
namespace {

class AlwaysInlineRule : public SketchRule {
 public:
  const char* name() const override { return "always_inline"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    const te::OpAnalysis& a = state.dag()->analysis(stage);
    if (a.is_placeholder || a.is_output || !a.is_strictly_inlinable || IsInlined(state, stage) ||
        IsCacheReadStage(state, stage))
      return RuleDecision::kSkip;
    return RuleDecision::kApplyAndSkipRest;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    schedule::State next = state;
    if (!next.Apply(schedule::ComputeInlineStep{stage}).ok()) return {};
    return {DerivedState{std::move(next), stage - 1, ""}};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeAlwaysInlineRule() { return std::make_unique<AlwaysInlineRule>(); }

}  // namespace tuneforge::search
