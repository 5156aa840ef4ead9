#include "absl/strings/str_join.h"
#include "common/schedule/steps/apply_step.h"

namespace tuneforge::schedule {

absl::Status ApplyStep(const FuseStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckComputeStage(step.stage); !s.ok()) return s;
  if (step.iters.empty()) return ctx.Error("iters is empty; name at least one iterator");
  const Stage& stage = ctx.stage(step.stage);
  const std::string list = absl::StrJoin(step.iters, ", ");
  for (size_t k = 0; k < step.iters.size(); ++k) {
    int i = step.iters[k];
    if (absl::Status s = ctx.CheckIter(step.stage, i); !s.ok()) return s;
    if (k > 0 && i != step.iters[k - 1] + 1)
      return ctx.Error("iterators [", list,
                       "] are not consecutive; fuse adjacent loops, outermost first (reorder "
                       "them first if needed)");
    const Iterator& it = stage.iters[i];
    if (it.annotation != IterAnnotation::kNone)
      return ctx.Error(IterLabel(stage, i), " of stage ", StageLabel(*ctx.state, step.stage),
                       " is annotated '", AnnotationName(it.annotation),
                       "'; fuse before annotating");
    if (stage.iter_node(i).kind != stage.iter_node(step.iters[0]).kind)
      return ctx.Error("iterators [", list,
                       "] mix spatial and reduction loops; fuse only loops of one kind");
  }
  // One iterator: nothing to fuse (rules may emit it for a one-loop band).
  if (step.iters.size() == 1) return absl::OkStatus();

  Stage& edit = ctx.state->mutable_stages()[step.stage];
  FuseRelation rel;
  std::vector<std::string> names;
  int64_t extent = 1;
  for (int i : step.iters) {
    const IterNode& node = edit.iter_node(i);
    rel.parents.push_back(edit.iters[i].node);
    names.push_back(node.name);
    if (__builtin_mul_overflow(extent, node.extent, &extent))
      return ctx.Error("the fused extent of iterators [", list, "] overflows 64 bits");
  }
  rel.child = static_cast<int>(edit.nodes.size());
  edit.nodes.push_back(
      IterNode{absl::StrJoin(names, "@"), extent, edit.iter_node(step.iters[0]).kind});
  const int first = step.iters.front();
  edit.iters.erase(edit.iters.begin() + first, edit.iters.begin() + step.iters.back() + 1);
  edit.iters.insert(edit.iters.begin() + first, Iterator{rel.child, IterAnnotation::kNone});
  // Stages placed in any of the fused loops are computed per fused iteration
  // (for an outer one that recomputes more often, which is still correct).
  for (Stage& other : ctx.state->mutable_stages())
    if (auto* at = std::get_if<ComputeAtIter>(&other.location);
        at && at->target_stage == step.stage)
      for (int p : rel.parents)
        if (at->target_node == p) at->target_node = rel.child;
  edit.relations.push_back(std::move(rel));
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
