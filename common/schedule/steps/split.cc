#include "absl/strings/str_join.h"
#include "common/schedule/node_values.h"
#include "common/schedule/steps/apply_step.h"

namespace tuneforge::schedule {

absl::Status SplitIterator(const StepContext& ctx, int stage_index, int iter,
                           const std::vector<int64_t>& lengths, bool inner_to_outer) {
  if (absl::Status s = ctx.CheckIter(stage_index, iter); !s.ok()) return s;
  const Stage& stage = ctx.stage(stage_index);
  if (lengths.empty()) return ctx.Error("no lengths given; a split needs at least one length");
  int64_t fixed = 1;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 1)
      return ctx.Error("length ", lengths[i], " at position ", i, " of [",
                       absl::StrJoin(lengths, ", "), "] must be >= 1");
    if (__builtin_mul_overflow(fixed, lengths[i], &fixed))
      return ctx.Error("the product of lengths [", absl::StrJoin(lengths, ", "),
                       "] overflows 64 bits; use lengths no larger than the loop");
  }
  const Iterator& it = stage.iters[iter];
  if (it.annotation != IterAnnotation::kNone)
    return ctx.Error(IterLabel(stage, iter), " of stage ", StageLabel(*ctx.state, stage_index),
                     " is annotated '", AnnotationName(it.annotation),
                     "'; split it before annotating");

  Stage& edit = ctx.state->mutable_stages()[stage_index];
  const int parent = it.node;
  const IterNode parent_node = edit.nodes[parent];
  const int64_t rest = (parent_node.extent + fixed - 1) / fixed;  // the remainder child
  std::vector<int64_t> extents = lengths;
  if (inner_to_outer) {
    extents.insert(extents.begin(), rest);
  } else {
    extents.push_back(rest);
  }
  SplitRelation rel{parent, {}, inner_to_outer, lengths};
  std::vector<Iterator> children;
  for (size_t c = 0; c < extents.size(); ++c) {
    rel.children.push_back(static_cast<int>(edit.nodes.size()));
    children.push_back(Iterator{rel.children.back(), IterAnnotation::kNone});
    edit.nodes.push_back(
        IterNode{absl::StrCat(parent_node.name, ".", c), extents[c], parent_node.kind});
  }
  edit.iters.erase(edit.iters.begin() + iter);
  edit.iters.insert(edit.iters.begin() + iter, children.begin(), children.end());
  // A stage computed once per iteration of the old loop is now computed
  // once per iteration of its innermost part: the same placement.
  for (Stage& other : ctx.state->mutable_stages())
    if (auto* at = std::get_if<ComputeAtIter>(&other.location);
        at && at->target_stage == stage_index && at->target_node == parent)
      at->target_node = rel.children.back();
  edit.relations.push_back(std::move(rel));
  // The children as bound inference computes them (a length larger than
  // what is left is clamped), so a replay may skip bound inference here.
  RecomputeDerivedExtents(&edit);
  return absl::OkStatus();
}

absl::Status ApplyStep(const SplitStep& step, const StepContext& ctx) {
  return SplitIterator(ctx, step.stage, step.iter, step.lengths, step.inner_to_outer);
}

}  // namespace tuneforge::schedule
