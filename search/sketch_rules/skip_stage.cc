// Skip: leave the stage as it is. The fallback that always applies, so every
// stage (placeholders included) is passed on to the next one.
#include "search/sketch_rules/sketch_rules.h"

namespace tuneforge::search {
namespace {

class SkipStageRule : public SketchRule {
 public:
  const char* name() const override { return "skip"; }
  RuleDecision Check(const schedule::State&, int, const HardwareParams&) const override {
    return RuleDecision::kApply;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    return {DerivedState{state, stage - 1, ""}};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeSkipStageRule() { return std::make_unique<SkipStageRule>(); }

}  // namespace tuneforge::search
