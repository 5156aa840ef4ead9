// Precomputed constant (CPU): a stage computed from constant weights alone,
// Winograd's kernel transform G g G^T, is left at root as it is. The layout
// rewrite computes it once, before the first call, over its definition's
// axes (common/lower/hoist_constants.h), so its tiles and pragmas would only
// be search steps that change nothing the kernel runs: a quarter of the
// tile-size mutations of a Winograd program, each proposing a copy. TVM
// tunes such a conv with its kernel transformed ahead, likewise.
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {
namespace {

class PrecomputedConstantRule : public SketchRule {
 public:
  const char* name() const override { return "precomputed_constant"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams& hw) const override {
    if (hw.gpu || !IsPrecomputedConstant(state, stage) || !IsUntouchedComputeStage(state, stage))
      return RuleDecision::kSkip;
    return RuleDecision::kApplyAndSkipRest;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    return {DerivedState{state, stage - 1, ""}};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakePrecomputedConstantRule() { return std::make_unique<PrecomputedConstantRule>(); }

}  // namespace tuneforge::search
