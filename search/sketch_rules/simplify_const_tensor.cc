// Simplify compute with constant tensors (Ansor's rule for Winograd's
// transforms): a stage whose axes index a constant matrix (B, G, A) gets
// those axes unrolled innermost, so that each matrix entry is a constant in
// the generated code and its zeros and ones fold away; its other (spatial)
// axes are tiled in two levels, outer before inner, for the annotation to
// parallelize (CPU) or bind to blocks and threads (GPU).
//
// On a CPU the last tiled axis (the channels of Winograd's data and output
// transforms) gets a third, innermost level below the unrolled ones, one
// vector long: each unrolled statement then runs over a vector of channels,
// where without it every one of a transform's 36 outputs is scalar code.
// Its length is fixed here (the sampler keeps a sketch's lengths, see
// fill_tile_sizes.cc), not drawn: with drawn lengths, 300 trials of the
// 256-channel 14x14 conv kept a 2-lane data transform that 8 or 16 lanes
// run 12 % faster (the whole conv), and the scalar form was 14 % slower
// still.
#include "search/annotation/tile_lengths.h"
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {
namespace {

class SimplifyConstTensorRule : public SketchRule {
 public:
  const char* name() const override { return "simplify_const_tensor"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    return IsConstantMatrixTransform(state, stage) ? RuleDecision::kApplyAndSkipRest : RuleDecision::kSkip;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams& hw) const override {
    const te::OpAnalysis& a = state.dag()->analysis(stage);
    const int n = static_cast<int>(state.stage(stage).iters.size());
    int vector_axis = -1;  // the last tiled axis, on a CPU
    if (!hw.gpu)
      for (int i = 0; i < n; ++i)
        if (!IsConstantIndexAxis(a, i)) vector_axis = i;
    const int64_t lanes =
        vector_axis < 0 ? 1 : DividingVectorLength(state.stage(stage).iter_node(vector_axis).extent, hw.vector_lanes);
    if (lanes <= 1) vector_axis = -1;
    schedule::State next = state;
    // Split the tiled axes, last first so earlier indices hold; the vector
    // level first, then what is left of its axis in two.
    for (int i = n - 1; i >= 0; --i) {
      if (IsConstantIndexAxis(a, i)) continue;
      if (i == vector_axis && !next.Apply(schedule::SplitStep{stage, i, {lanes}, true}).ok()) return {};
      if (!next.Apply(schedule::SplitStep{stage, i, {1}, true}).ok()) return {};
    }
    std::vector<int> outer, inner, unrolled, vectorized;
    for (int i = 0, at = 0; i < n; ++i) {
      if (IsConstantIndexAxis(a, i)) {
        unrolled.push_back(at++);
        continue;
      }
      outer.push_back(at++);
      inner.push_back(at++);
      if (i == vector_axis) vectorized.push_back(at++);
    }
    std::vector<int> order = outer;
    for (const std::vector<int>* part : {&inner, &unrolled, &vectorized})
      order.insert(order.end(), part->begin(), part->end());
    if (!next.Apply(schedule::ReorderStep{stage, order}).ok()) return {};
    const int first_unrolled = static_cast<int>(outer.size() + inner.size());
    for (int i = first_unrolled; i < first_unrolled + static_cast<int>(unrolled.size()); ++i)
      if (!next.Apply(schedule::AnnotationStep{stage, i, schedule::IterAnnotation::kUnroll}).ok()) return {};
    return {DerivedState{std::move(next), stage - 1, ""}};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeSimplifyConstTensorRule() { return std::make_unique<SimplifyConstTensorRule>(); }

}  // namespace tuneforge::search
