// Add cache read (packing; beyond Ansor's CPU rules): a tiled stage's input
// that is read along the stage's innermost spatial axis in its innermost
// dimension, and along a reduction axis in an outer one (B[k, j] of a
// matmul), is copied into a local buffer that the stage then reads instead.
// Where annotation computes the copy (a random loop around the stage, chosen
// and mutated like any compute location) decides the panel it packs: a few
// rows of k across the tile's columns, reused by every row of the tile, laid
// out contiguously. Without it, a tile's column strip of a wide matrix is a
// column of cache lines a whole row apart: on the same L1 sets, each load a
// miss, whatever the tile sizes (a 4x16 register tile of a 1024^3 matmul ran
// at a quarter of the speed it reached with its B panel packed).
//
// A constant weight that the stage reuses across a reduction is packed
// whatever its row length or read order (dense's W[j, k], a conv's
// W[k, c, r, s]): the layout rewrite (common/lower/hoist_constants.h)
// computes the copy once, before the kernel runs, and stores it in the order
// the register tile reads it (common/lower/local_layout.h), so per call it
// costs nothing and turns strided or broadcast reads into vector loads.
// The same holds for a stage computed from constants alone
// (IsPrecomputedConstant): Winograd's transformed weights, laid out
// [c][eps][nu][k] by their definition, which the batched product would
// otherwise read 16-36 KB apart from one reduction step to the next (the
// transform itself then lives only in the prepack function).
//
// The unpacked stage is derived as well (kApply): the search decides.
#include "common/te/expr_util.h"
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {
namespace {

// Rows of at least this many bytes make a strip's cache lines collide.
constexpr int64_t kMinRowBytes = 1024;

// The input stages of `stage` worth packing (see the file comment).
std::vector<int> PackableInputs(const schedule::State& state, int stage) {
  const te::Tensor& op = state.stage(stage).op;
  const te::Reduce* red = op->reduce();
  if (!red || op->axes.empty()) return {};
  const te::VarNode* inner = op->axes.back().var.get();
  std::vector<int> out;
  for (int producer : state.dag()->analysis(stage).producers) {
    const te::Tensor& input = state.stage(producer).op;
    const bool constant = input->is_placeholder() ? input->constant : IsPrecomputedConstant(state, producer);
    if ((!input->is_placeholder() && !constant) || input->shape.size() < 2) continue;
    int reads = 0;
    bool shape_fits = false;
    te::PostOrderVisit(op->body, [&](const te::Expr& e) {
      const auto* read = e.as<te::TensorRead>();
      if (!read || read->tensor != input) return;
      ++reads;
      const std::vector<te::Expr>& idx = read->indices;
      bool inner_on_last = te::UsesVar(idx.back(), inner);
      bool inner_elsewhere = false, reduce_outside = false;
      for (size_t d = 0; d + 1 < idx.size(); ++d) {
        inner_elsewhere = inner_elsewhere || te::UsesVar(idx[d], inner);
        for (const te::IterVar& r : red->axes) reduce_outside = reduce_outside || te::UsesVar(idx[d], r.var.get());
      }
      bool reduce_anywhere = reduce_outside;
      for (const te::IterVar& r : red->axes) reduce_anywhere = reduce_anywhere || te::UsesVar(idx.back(), r.var.get());
      shape_fits = (inner_on_last && !inner_elsewhere && reduce_outside &&
                    input->shape.back() * input->dtype.bytes() >= kMinRowBytes) ||
                   (constant && reduce_anywhere);
    });
    if (reads == 1 && shape_fits) out.push_back(producer);
  }
  return out;
}

class AddCacheReadRule : public SketchRule {
 public:
  const char* name() const override { return "add_cache_read"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    if (!NeedsMultiLevelTiling(state, stage) || IsInlined(state, stage) || IsTransformed(state, stage) ||
        PackableInputs(state, stage).empty())
      return RuleDecision::kSkip;
    return RuleDecision::kApply;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    std::vector<DerivedState> out;
    for (int input : PackableInputs(state, stage)) {
      schedule::State next = state;
      if (!next.Apply(schedule::CacheReadStep{input, "local", {stage}}).ok()) continue;
      // The copy is inserted right after the input, before the stage: the
      // stage moves up by one and is visited again (its input is now the
      // copy, a compute stage, so this rule passes it by).
      out.push_back(DerivedState{std::move(next), stage + 1, state.stage(input).op->name});
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeAddCacheReadRule() { return std::make_unique<AddCacheReadRule>(); }

}  // namespace tuneforge::search
