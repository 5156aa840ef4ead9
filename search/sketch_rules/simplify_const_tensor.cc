// Simplify compute with constant tensors (Ansor's rule for Winograd's
// transforms): a stage whose axes index a constant matrix (B, G, A) gets
// those axes unrolled innermost, so that each matrix entry is a constant in
// the generated code and its zeros and ones fold away; its other (spatial)
// axes are tiled in two levels, outer before inner, for the annotation to
// parallelize (CPU) or bind to blocks and threads (GPU).
#include <algorithm>

#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {
namespace {

class SimplifyConstTensorRule : public SketchRule {
 public:
  const char* name() const override { return "simplify_const_tensor"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    const te::OpAnalysis& a = state.dag()->analysis(stage);
    if (a.is_placeholder || a.constant_index_axes.empty() || !IsUntouchedComputeStage(state, stage))
      return RuleDecision::kSkip;
    // Every axis left to tile is spatial: a reduction that does not index
    // the matrix would need tiling of its own.
    const schedule::Stage& st = state.stage(stage);
    for (int i = st.num_spatial_axes(); i < static_cast<int>(st.iters.size()); ++i)
      if (!IsConstantIndexAxis(a, i)) return RuleDecision::kSkip;
    return RuleDecision::kApplyAndSkipRest;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    const te::OpAnalysis& a = state.dag()->analysis(stage);
    const int n = static_cast<int>(state.stage(stage).iters.size());
    schedule::State next = state;
    // Split the tiled axes in two, last first so earlier indices hold.
    for (int i = n - 1; i >= 0; --i)
      if (!IsConstantIndexAxis(a, i) && !next.Apply(schedule::SplitStep{stage, i, {1}, true}).ok()) return {};
    std::vector<int> outer, inner, unrolled;
    for (int i = 0, at = 0; i < n; ++i) {
      if (IsConstantIndexAxis(a, i)) {
        unrolled.push_back(at++);
      } else {
        outer.push_back(at++);
        inner.push_back(at++);
      }
    }
    std::vector<int> order = outer;
    order.insert(order.end(), inner.begin(), inner.end());
    order.insert(order.end(), unrolled.begin(), unrolled.end());
    if (!next.Apply(schedule::ReorderStep{stage, order}).ok()) return {};
    const int first_unrolled = static_cast<int>(outer.size() + inner.size());
    for (int i = first_unrolled; i < static_cast<int>(order.size()); ++i)
      if (!next.Apply(schedule::AnnotationStep{stage, i, schedule::IterAnnotation::kUnroll}).ok()) return {};
    return {DerivedState{std::move(next), stage - 1, ""}};
  }

 private:
  static bool IsConstantIndexAxis(const te::OpAnalysis& a, int axis) {
    return std::find(a.constant_index_axes.begin(), a.constant_index_axes.end(), axis) !=
           a.constant_index_axes.end();
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeSimplifyConstTensorRule() { return std::make_unique<SimplifyConstTensorRule>(); }

}  // namespace tuneforge::search
