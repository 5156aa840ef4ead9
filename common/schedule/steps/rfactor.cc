// rfactor: a reduction loop becomes a spatial axis of a new stage
// "<name>.rf" that computes partial results; the original stage then reduces
// those partials over that axis with the same combiner.
//
// The loop may come from any splits and fuses of the reduction axes (Ansor
// fuses all reduction loops, splits the result and factors one part). The
// reduction axes it depends on are rewritten as expressions of the loops
// they were split/fused into; those loops (other than the factored one) are
// the new stage's reduction axes, and non-divisible splits are guarded by
// the reduction's condition. Both stages restart from untransformed loops;
// the original keeps its location, scope and storage alignment.
#include "absl/container/flat_hash_set.h"
#include "common/overloaded.h"
#include "common/schedule/node_values.h"
#include "common/schedule/steps/apply_step.h"
#include "common/schedule/steps/dag_rewrite.h"
#include "common/schedule/steps/placement.h"
#include "common/te/expr_util.h"

namespace tuneforge::schedule {
namespace {

using LeafSet = absl::flat_hash_set<int>;

// For every node, the leaves (current loops) its value is computed from.
std::vector<LeafSet> LeafDependencies(const Stage& stage) {
  std::vector<LeafSet> deps(stage.nodes.size());
  for (const Iterator& it : stage.iters) deps[it.node].insert(it.node);
  for (auto rel = stage.relations.rbegin(); rel != stage.relations.rend(); ++rel)
    std::visit(Overloaded{
                   [&](const SplitRelation& s) {
                     for (int c : s.children) deps[s.parent].insert(deps[c].begin(), deps[c].end());
                   },
                   [&](const FuseRelation& f) {
                     for (int p : f.parents) deps[p] = deps[f.child];
                   },
               },
               *rel);
  return deps;
}

bool Intersects(const LeafSet& a, const LeafSet& b) {
  for (int x : a)
    if (b.contains(x)) return true;
  return false;
}

// What the factored loop drags along: the root reduction axes whose values
// depend on it, closed over shared loops, and the loops they depend on.
struct FactorGroup {
  absl::flat_hash_set<int> roots;  // node indices of root reduction axes
  LeafSet leaves;
};

FactorGroup GroupOf(const Stage& stage, const std::vector<LeafSet>& deps, int leaf, int first_root,
                    int num_roots) {
  FactorGroup g;
  g.leaves.insert(leaf);
  for (bool grew = true; grew;) {
    grew = false;
    for (int r = first_root; r < first_root + num_roots; ++r)
      if (!g.roots.contains(r) && Intersects(deps[r], g.leaves)) {
        g.roots.insert(r);
        g.leaves.insert(deps[r].begin(), deps[r].end());
        grew = true;
      }
  }
  return g;
}

struct RfactorOps {
  te::Tensor partial;   // <name>.rf
  te::Tensor combined;  // the original, reducing the partials
};

absl::StatusOr<RfactorOps> BuildOps(const Stage& stage, int leaf, int factor_iter,
                                    const std::string& rf_name) {
  const te::Tensor& op = stage.op;
  const te::Reduce& red = *op->reduce();
  const int first_root = stage.num_spatial_axes();
  const int num_roots = static_cast<int>(red.axes.size());
  const std::vector<LeafSet> deps = LeafDependencies(stage);
  const FactorGroup group = GroupOf(stage, deps, leaf, first_root, num_roots);

  // Every loop gets a fresh variable; NodeValues expresses each node in them.
  std::vector<te::Expr> leaf_values(stage.nodes.size());
  std::vector<te::Var> leaf_vars(stage.nodes.size());
  for (const Iterator& it : stage.iters) {
    leaf_vars[it.node] = te::MakeVar(stage.nodes[it.node].name);
    leaf_values[it.node] = te::Expr(leaf_vars[it.node]);
  }
  const std::vector<te::Expr> values = NodeValues(stage, leaf_values);

  std::vector<te::IterVar> rf_axes = FreshAxes(op->axes);
  te::VarMap map;
  for (size_t d = 0; d < rf_axes.size(); ++d) map[op->axes[d].var.get()] = te::Expr(rf_axes[d].var);
  rf_axes.insert(rf_axes.begin() + factor_iter,
                 te::IterVar{leaf_vars[leaf], stage.nodes[leaf].extent});
  // Reduction axes of the partial stage, in the original axis order: a root
  // outside the group stays itself; the group's loops replace its roots.
  std::vector<te::IterVar> rf_reduce;
  bool group_done = false;
  for (int r = first_root; r < first_root + num_roots; ++r) {
    const te::IterVar& axis = red.axes[r - first_root];
    if (!group.roots.contains(r)) {
      te::IterVar fresh{te::MakeVar(axis.var->name), axis.extent};
      map[axis.var.get()] = te::Expr(fresh.var);
      rf_reduce.push_back(fresh);
      continue;
    }
    map[axis.var.get()] = values[r];
    if (group_done) continue;
    group_done = true;
    for (const Iterator& it : stage.iters)  // loop order
      if (it.node != leaf && group.leaves.contains(it.node))
        rf_reduce.push_back(te::IterVar{leaf_vars[it.node], stage.nodes[it.node].extent});
  }
  te::Expr cond = red.condition ? te::Substitute(red.condition, map) : te::Expr();
  for (const IterRelation& rel : stage.relations) {
    const auto* s = std::get_if<SplitRelation>(&rel);
    if (!s || !Intersects(deps[s->parent], group.leaves)) continue;
    int64_t span = 1;
    for (int c : s->children) span *= stage.nodes[c].extent;
    if (span <= stage.nodes[s->parent].extent) continue;
    te::Expr guard = values[s->parent] < te::Expr(stage.nodes[s->parent].extent);
    cond = cond ? te::LogicalAnd(cond, guard) : guard;
  }
  te::Expr source = te::Substitute(red.source, map);
  te::Expr rf_body;
  if (!rf_reduce.empty()) {
    rf_body = te::MakeReduce(red.combiner, source, rf_reduce, cond);
  } else {  // nothing left to reduce: one partial per element
    rf_body = cond
                  ? te::MakeSelect(cond, source, te::CombinerIdentity(red.combiner, source.dtype()))
                  : source;
  }
  absl::StatusOr<te::Tensor> partial = te::MakeCompute(rf_name, rf_axes, rf_body, op->tag);
  if (!partial.ok()) return partial.status();

  te::IterVar over{te::MakeVar(stage.nodes[leaf].name), stage.nodes[leaf].extent};
  std::vector<te::Expr> indices;
  for (const te::IterVar& a : op->axes) indices.push_back(te::Expr(a.var));
  indices.insert(indices.begin() + factor_iter, te::Expr(over.var));
  te::Expr combined_body =
      te::MakeReduce(red.combiner, te::Read(*partial, std::move(indices)), {over});
  absl::StatusOr<te::Tensor> combined = te::MakeCompute(op->name, op->axes, combined_body, op->tag);
  if (!combined.ok()) return combined.status();
  return RfactorOps{*std::move(partial), *std::move(combined)};
}

}  // namespace

absl::Status ApplyStep(const RfactorStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckIter(step.stage, step.iter); !s.ok()) return s;
  State& state = *ctx.state;
  const std::string name = StageLabel(state, step.stage);
  const Stage& stage = state.stage(step.stage);
  if (!stage.op->reduce())
    return ctx.Error("stage ", name, " has no reduction; rfactor factors a reduction loop");
  if (stage.iter_node(step.iter).kind != IterKind::kReduce)
    return ctx.Error(IterLabel(stage, step.iter), " of stage ", name,
                     " is a spatial loop; rfactor needs one of its reduction loops");
  const int num_spatial = stage.num_spatial_axes();
  if (step.factor_iter < 0 || step.factor_iter > num_spatial)
    return ctx.Error("factor_iter ", step.factor_iter,
                     " out of range; the new axis goes among the ", num_spatial,
                     " spatial axes of ", name, ", at a position in 0..", num_spatial);
  for (int s = 0; s < state.num_stages(); ++s)
    if (const auto* at = std::get_if<ComputeAtIter>(&state.stage(s).location);
        at && at->target_stage == step.stage)
      return ctx.Error("stage ", StageLabel(state, s), " is computed inside a loop of ", name,
                       ", which rfactor replaces; apply rfactor before compute_at");

  absl::StatusOr<RfactorOps> ops =
      BuildOps(stage, stage.iters[step.iter].node, step.factor_iter,
               UniqueOpName(*state.dag(), absl::StrCat(stage.op->name, ".rf")));
  if (!ops.ok()) return ctx.Error(ops.status().message());
  DagRewrite rewrite;
  rewrite.ops = state.dag()->ops();
  rewrite.replaced[stage.op.get()] = ops->combined;
  rewrite.ops[step.stage] = ops->combined;
  rewrite.ops.insert(rewrite.ops.begin() + step.stage, ops->partial);
  absl::StatusOr<te::ComputeDagPtr> dag = RebuildDag(std::move(rewrite));
  if (!dag.ok()) return ctx.Error(dag.status().message());

  InsertStage(&state, *dag, step.stage, MakeInitialStage((*dag)->op(step.stage)));
  ResetLoopsKeepingPlacement(&state.mutable_stages()[step.stage + 1]);
  if (absl::Status s = CheckAllPlacements(state); !s.ok()) return ctx.Error(s.message());
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
