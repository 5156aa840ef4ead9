// Multi-level tiling with consumer fusion: when the tiled stage has a single
// element-wise consumer (matmul + relu, conv2d + bias + relu, or the copy out
// of a cache stage), the consumer is tiled like the stage's outer levels and
// the stage is computed inside those loops: each tile of the result is
// finished while it is still in cache. One sketch per fusion level, and per
// axis a constant weight can be vectorized along (a conv's output channels
// innermost in the register tile; stage_queries.h, WeightVectorAxes).
// Where the output's last axis is shorter than a vector and such a weight
// axis exists, only the weight's variants: with the last axis innermost
// every vector is partial, and 1,000-trial conv 3x3 tunings over 14-wide
// rows that settled in such a tiling early ended at 0.80x oneDNN.
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"
#include "search/sketch_rules/tiling.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tuneforge::search {
namespace {

class MultiLevelTilingWithFusionRule : public SketchRule {
 public:
  MultiLevelTilingWithFusionRule(std::string structure, std::vector<int> levels, bool weight_vector_variants)
      : structure_(std::move(structure)), levels_(std::move(levels)),
        weight_vector_variants_(weight_vector_variants) {}
  const char* name() const override { return "multi_level_tiling_with_fusion"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    if (!NeedsMultiLevelTiling(state, stage) || IsInlined(state, stage) ||
        IsTransformed(state, stage) || SingleElementwiseConsumer(state, stage) < 0)
      return RuleDecision::kSkip;
    return RuleDecision::kApplyAndSkipRest;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams& hw) const override {
    const int consumer = SingleElementwiseConsumer(state, stage);
    const int s_levels = static_cast<int>(std::count(structure_.begin(), structure_.end(), 'S'));
    // The register tile in the axes' order, and with each weight-vector
    // axis innermost: the fused consumer copies the tile back in the
    // output's order, so only the accumulator (a local buffer stored in
    // its loops' order) sees the inner axis.
    std::vector<int> inner_axes = {-1};
    if (weight_vector_variants_) {
      const std::vector<int> weight_axes = WeightVectorAxes(state, stage);
      if (!weight_axes.empty() && RowsShorterThanAVector(state, stage, hw.vector_lanes)) inner_axes.clear();
      inner_axes.insert(inner_axes.end(), weight_axes.begin(), weight_axes.end());
    }
    std::vector<DerivedState> out;
    for (int level : levels_) {
      if (level < 1 || level >= s_levels) continue;
      for (int inner : inner_axes) {
        schedule::State next = state;
        absl::StatusOr<std::vector<int>> splits = ApplyMultiLevelTiling(&next, stage, structure_, inner);
        if (!splits.ok() || !FuseIntoConsumer(&next, stage, consumer, *splits, level).ok()) continue;
        std::string variant = absl::StrCat("fused at tile level ", level);
        if (inner >= 0) absl::StrAppend(&variant, ", ", state.stage(stage).op->axes[inner].var->name, " innermost");
        out.push_back(DerivedState{std::move(next), stage - 1, std::move(variant)});
      }
    }
    return out;
  }

 private:
  std::string structure_;
  std::vector<int> levels_;
  bool weight_vector_variants_;
};

}  // namespace

std::unique_ptr<SketchRule> MakeMultiLevelTilingWithFusionRule(const std::string& structure,
                                                                std::vector<int> fusion_levels,
                                                                bool weight_vector_variants) {
  return std::make_unique<MultiLevelTilingWithFusionRule>(structure, std::move(fusion_levels),
                                                          weight_vector_variants);
}

}  // namespace tuneforge::search
