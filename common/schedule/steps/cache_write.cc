// cache_write: a new stage "<name>.<scope>" computes the stage's body
// (reduction included) into a buffer of `scope`, and the stage becomes an
// element-wise copy out of it. Both restart from untransformed loops.
//
// Decision: cache_write is rejected on a stage whose loops were already
// transformed (split, fuse, reorder, annotation, pragma) or that has stages
// placed in its loops: those loops are replaced, so the earlier steps would
// silently lose their meaning. Apply cache_write first, as Ansor's rules do.
#include "common/schedule/steps/apply_step.h"
#include "common/schedule/loop_transforms.h"
#include "common/schedule/steps/dag_rewrite.h"
#include "common/schedule/steps/placement.h"
#include "common/te/expr_util.h"

namespace tuneforge::schedule {
namespace {

// The op's body with fresh variables for its spatial and reduction axes.
absl::StatusOr<te::Tensor> CopyWithFreshAxes(const te::Tensor& op, const std::string& name) {
  std::vector<te::IterVar> axes = FreshAxes(op->axes);
  te::VarMap map;
  for (size_t d = 0; d < axes.size(); ++d) map[op->axes[d].var.get()] = te::Expr(axes[d].var);
  te::Expr body;
  if (const te::Reduce* red = op->reduce()) {
    std::vector<te::IterVar> reduce_axes = FreshAxes(red->axes);
    for (size_t r = 0; r < reduce_axes.size(); ++r)
      map[red->axes[r].var.get()] = te::Expr(reduce_axes[r].var);
    te::Expr cond = red->condition ? te::Substitute(red->condition, map) : te::Expr();
    body = te::MakeReduce(red->combiner, te::Substitute(red->source, map), reduce_axes, cond);
  } else {
    body = te::Substitute(op->body, map);
  }
  return te::MakeCompute(name, std::move(axes), body, op->tag);
}

}  // namespace

absl::Status ApplyStep(const CacheWriteStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckComputeStage(step.stage); !s.ok()) return s;
  if (absl::Status s = ctx.CheckScope(step.scope); !s.ok()) return s;
  State& state = *ctx.state;
  const std::string name = StageLabel(state, step.stage);
  const Stage& stage = state.stage(step.stage);
  if (std::holds_alternative<ComputeInlined>(stage.location))
    return ctx.Error("stage ", name, " is inlined and writes no buffer; compute_root it first");
  if (std::string done = LoopTransforms(stage); !done.empty())
    return ctx.Error("the loops of stage ", name, " were already ", done,
                     "; cache_write replaces them, so apply it before transforming the stage");
  for (int s = 0; s < state.num_stages(); ++s)
    if (const auto* at = std::get_if<ComputeAtIter>(&state.stage(s).location);
        at && at->target_stage == step.stage)
      return ctx.Error("stage ", StageLabel(state, s), " is computed inside a loop of ", name,
                       ", which cache_write replaces; apply cache_write before compute_at");

  absl::StatusOr<te::ComputeDagPtr> dag =
      SharedRewrite(state.dag(), step, [&]() -> absl::StatusOr<te::ComputeDagPtr> {
        const te::Tensor original = stage.op;
        absl::StatusOr<te::Tensor> cache = CopyWithFreshAxes(
            original, UniqueOpName(*state.dag(), absl::StrCat(original->name, ".", step.scope)));
        if (!cache.ok()) return cache.status();
        std::vector<te::Expr> indices;
        for (const te::IterVar& a : original->axes) indices.push_back(te::Expr(a.var));
        absl::StatusOr<te::Tensor> copy = te::MakeCompute(
            original->name, original->axes, te::Read(*cache, std::move(indices)), "cache_write");
        if (!copy.ok()) return copy.status();
        DagRewrite rewrite;
        rewrite.ops = state.dag()->ops();
        rewrite.ops[step.stage] = *copy;
        rewrite.ops.insert(rewrite.ops.begin() + step.stage, *cache);
        rewrite.replaced[original.get()] = *copy;
        return RebuildDag(std::move(rewrite));
      });
  if (!dag.ok()) return ctx.Error(dag.status().message());

  Stage inserted = MakeInitialStage((*dag)->op(step.stage));
  inserted.scope = step.scope;
  InsertStage(&state, *dag, step.stage, std::move(inserted));
  // The original, now one later: fresh loops, same place and buffer.
  ResetLoopsKeepingPlacement(&state.mutable_stages()[step.stage + 1]);
  if (absl::Status s = CheckAllPlacements(state); !s.ok()) return ctx.Error(s.message());
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
