// Multi-level tiling: a stage with data reuse (a reduction whose inputs miss
// some spatial axis, like matmul or conv2d) gets its loops split into levels
// and interleaved (SSRSRS on CPU), so that tiles of its inputs stay in
// registers and caches. The tile sizes are left to annotation.
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"
#include "search/sketch_rules/tiling.h"

namespace tuneforge::search {
namespace {

class MultiLevelTilingRule : public SketchRule {
 public:
  explicit MultiLevelTilingRule(std::string structure) : structure_(std::move(structure)) {}
  const char* name() const override { return "multi_level_tiling"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    if (!NeedsMultiLevelTiling(state, stage) || IsInlined(state, stage) || IsTransformed(state, stage))
      return RuleDecision::kSkip;
    return RuleDecision::kApplyAndSkipRest;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    schedule::State next = state;
    if (!ApplyMultiLevelTiling(&next, stage, structure_).ok()) return {};
    return {DerivedState{std::move(next), stage - 1, ""}};
  }

 private:
  std::string structure_;
};

}  // namespace

std::unique_ptr<SketchRule> MakeMultiLevelTilingRule(const std::string& structure) {
  return std::make_unique<MultiLevelTilingRule>(structure);
}

}  // namespace tuneforge::search
