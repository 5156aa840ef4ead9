#include "common/schedule/bound.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/schedule/effective_body.h"
#include "common/schedule/node_values.h"
#include "common/te/arith/interval.h"
#include "common/te/arith/simplify.h"
#include "common/te/arith/sum_form.h"
#include "common/te/expr_util.h"
#include "common/te/tensor.h"

namespace tuneforge::schedule {
namespace {

using te::arith::IntInterval;
using te::arith::SumForm;
using te::arith::VarBounds;

// One access's bounds: `fixed` (a sum over the variables of the loops that
// enclose the producer) plus a constant interval [lo, hi].
struct AccessBound {
  SumForm fixed;
  int64_t lo = 0, hi = 0;
};

bool OnlyUses(const te::Expr& e, const absl::flat_hash_set<const te::VarNode*>& vars) {
  bool ok = true;
  te::PostOrderVisit(e, [&](const te::Expr& x) {
    if (const auto* v = x.as<te::VarRef>(); v && !vars.contains(v->var.get())) ok = false;
  });
  return ok;
}

// Splits an index into the part fixed at the producer's position and a
// constant range for the rest. nullopt when the rest has no bounds.
std::optional<AccessBound> BoundAccess(const te::Expr& index,
                                       const absl::flat_hash_set<const te::VarNode*>& fixed,
                                       const VarBounds& bounds) {
  SumForm f = te::arith::ToSumForm(index);
  AccessBound out;
  out.lo = out.hi = f.constant;
  for (const te::arith::SumTerm& t : f.terms) {
    if (OnlyUses(t.atom, fixed)) {
      out.fixed.AddTerm(t.atom, t.coef);
      continue;
    }
    std::optional<IntInterval> b = te::arith::ConstBounds(t.atom, bounds);
    if (!b) return std::nullopt;
    int64_t x = b->lo * t.coef, y = b->hi * t.coef;
    out.lo += std::min(x, y);
    out.hi += std::max(x, y);
  }
  return out;
}

// The whole analysis; extents of `stages` are updated as it goes.
class RegionInference {
 public:
  RegionInference(const State& state, std::vector<Stage>* stages, const LoopVars& vars)
      : state_(state), stages_(*stages), vars_(vars) {}

  absl::StatusOr<std::vector<Region>> Run() {
    std::shared_ptr<const EffectiveStages> effective = EffectiveStagesOf(state_);
    const std::vector<te::Expr>& bodies = effective->bodies;
    const std::vector<std::vector<int>>& consumers = effective->consumers;
    int n = static_cast<int>(stages_.size());
    std::vector<Region> regions(n);
    for (Stage& s : stages_) ResetToShape(&s);
    // Consumers come after producers: walk backwards so every consumer's
    // region and loop extents are final when its producers are bounded.
    for (int s = n - 1; s >= 0; --s) {
      Stage& stage = stages_[s];
      if (stage.is_placeholder() || IsInlined(stage)) continue;
      const auto* at = std::get_if<ComputeAtIter>(&stage.location);
      if (!at) {
        regions[s] = FullRegion(stage);
      } else {
        absl::StatusOr<Region> r = AttachedRegion(s, *at, bodies, consumers[s], regions);
        if (!r.ok()) return r.status();
        regions[s] = *std::move(r);
        for (size_t d = 0; d < regions[s].extent.size(); ++d)
          stage.nodes[d].extent = regions[s].extent[d];
        RecomputeDerivedExtents(&stage);
        if (PadToWholeTiles(&stage, &regions[s])) RecomputeDerivedExtents(&stage);
      }
      for (const Iterator& it : stage.iters)
        bounds_[vars_[s][it.node].get()] = IntInterval{0, stage.nodes[it.node].extent - 1};
    }
    return regions;
  }

 private:
  // An attached stage whose own split of an axis does not divide its region
  // (24-lane tiles over 1,024 columns) computes whole tiles: its region grows
  // to the tiles' span, past the tensor's end where it reaches it, so its
  // buffer holds them and its loops need no test of their own; lowering
  // drops the test of the tensor's end too where that is safe
  // (CanOverrunTheEnd, lower/passes/build_loop_nest.cc).
  static bool PadToWholeTiles(Stage* stage, Region* region) {
    bool padded = false;
    for (const IterRelation& rel : stage->relations) {
      const auto* split = std::get_if<SplitRelation>(&rel);
      if (!split || split->parent >= static_cast<int>(region->extent.size())) continue;
      int64_t span = 1;
      for (int c : split->children) span *= stage->nodes[c].extent;
      if (span <= region->extent[split->parent]) continue;
      region->extent[split->parent] = span;
      stage->nodes[split->parent].extent = span;
      padded = true;
    }
    return padded;
  }

  static void ResetToShape(Stage* s) {
    if (s->is_placeholder()) return;
    for (size_t d = 0; d < s->op->axes.size(); ++d) s->nodes[d].extent = s->op->axes[d].extent;
    RecomputeDerivedExtents(s);
  }

  static Region FullRegion(const Stage& s) {
    Region r;
    for (int64_t e : s.op->shape) {
      r.min.push_back(te::Expr(0));
      r.extent.push_back(e);
    }
    return r;
  }

  // Coordinates of consumer c's op axes (spatial, then reduction) in terms
  // of its loop variables.
  std::vector<te::Expr> AxisValues(int c, const Region& region) {
    const Stage& stage = stages_[c];
    std::vector<te::Expr> leaf(stage.nodes.size());
    for (const Iterator& it : stage.iters) leaf[it.node] = te::Expr(vars_[c][it.node]);
    std::vector<te::Expr> values = NodeValues(stage, leaf);
    for (size_t d = 0; d < stage.op->axes.size(); ++d) values[d] = region.min[d] + values[d];
    return values;
  }

  absl::StatusOr<Region> AttachedRegion(int s, const ComputeAtIter& at,
                                        const std::vector<te::Expr>& bodies,
                                        const std::vector<int>& consumers,
                                        const std::vector<Region>& regions) {
    const Stage& stage = stages_[s];
    LoopPath path = EnclosingLoops(state_, s);
    // Shared memory is one buffer for all threads of a block: a stage cached
    // there inside a loop bound to threadIdx holds every thread's part (and
    // every vthread's), which the threads then fetch together; TVM relaxes
    // the region the same way. Only in a GPU program (a threadIdx loop
    // around it): on a CPU, vthread loops are plain loops and a "shared"
    // cache is just a copy.
    bool in_gpu_threads = false;
    for (auto [st, node] : path) in_gpu_threads = in_gpu_threads || IsThreadBinding(LoopAnnotation(st, node));
    absl::flat_hash_set<const te::VarNode*> fixed;
    for (auto [st, node] : path) {
      IterAnnotation a = LoopAnnotation(st, node);
      bool spans_threads = IsThreadBinding(a) || a == IterAnnotation::kVThread;
      if (!(in_gpu_threads && stage.scope == "shared" && spans_threads)) fixed.insert(vars_[st][node].get());
    }
    int rank = static_cast<int>(stage.op->shape.size());
    std::vector<std::vector<AccessBound>> per_dim(rank);
    bool unbounded = false;
    for (int c : consumers) {
      if (c != at.target_stage) {
        LoopPath cpath = EnclosingLoops(state_, c);
        if (cpath.size() < path.size() || !std::equal(path.begin(), path.end(), cpath.begin()))
          return absl::InvalidArgumentError(absl::StrCat(
              "stage '", stage.op->name, "' is computed inside a loop of stage '",
              stages_[at.target_stage].op->name, "' but its consumer '", stages_[c].op->name,
              "' is computed outside that loop; compute_at the consumer there too or use "
              "compute_root"));
      }
      const Stage& consumer = stages_[c];
      std::vector<te::Expr> axis = AxisValues(c, regions[c]);
      te::VarMap map;
      for (size_t d = 0; d < consumer.op->axes.size(); ++d)
        map[consumer.op->axes[d].var.get()] = axis[d];
      if (const te::Reduce* red = bodies[c].as<te::Reduce>())
        for (size_t r = 0; r < red->axes.size(); ++r)
          map[red->axes[r].var.get()] = axis[consumer.op->axes.size() + r];
      te::PostOrderVisit(bodies[c], [&](const te::Expr& e) {
        const auto* read = e.as<te::TensorRead>();
        if (!read || read->tensor != stage.op) return;
        for (int d = 0; d < rank; ++d) {
          te::Expr idx = te::arith::Simplify(te::Substitute(read->indices[d], map), bounds_);
          std::optional<AccessBound> b = BoundAccess(idx, fixed, bounds_);
          if (!b) {
            unbounded = true;
          } else {
            per_dim[d].push_back(*std::move(b));
          }
        }
      });
    }
    Region region;
    for (int d = 0; d < rank; ++d) {
      int64_t shape = stage.op->shape[d];
      const std::vector<AccessBound>& acc = per_dim[d];
      bool same_fixed = !unbounded && !acc.empty();
      for (const AccessBound& a : acc) same_fixed = same_fixed && a.fixed.SameTerms(acc[0].fixed);
      int64_t lo = 0, hi = shape - 1;
      SumForm min_form;
      if (same_fixed) {
        lo = acc[0].lo;
        hi = acc[0].hi;
        for (const AccessBound& a : acc) {
          lo = std::min(lo, a.lo);
          hi = std::max(hi, a.hi);
        }
        min_form = acc[0].fixed;
        min_form.constant = lo;
      }
      int64_t extent = hi - lo + 1;
      // Consumers whose tiles overrun the tensor's end (splits that do not
      // divide it) read past it from its start: the region keeps that span,
      // so the stage's own loops are whole tiles too, and its elements past
      // the end are computed untested where that is safe (lowering's
      // CanOverrunTheEnd), never stored to the tensor.
      const bool past_the_end = same_fixed && lo == 0 && extent > shape && min_form.terms.empty();
      if (past_the_end) {
        region.min.push_back(te::Expr(0));
        region.extent.push_back(extent);
      } else if (!same_fixed || extent >= shape) {
        // The whole dimension: the accesses could not be bounded more tightly
        // (or they span it anyway).
        region.min.push_back(te::Expr(0));
        region.extent.push_back(shape);
      } else {
        region.min.push_back(te::arith::FromSumForm(min_form));
        region.extent.push_back(extent);
      }
    }
    return region;
  }

  IterAnnotation LoopAnnotation(int stage, int node) const {
    for (const Iterator& it : stages_[stage].iters)
      if (it.node == node) return it.annotation;
    return IterAnnotation::kNone;
  }

  const State& state_;
  std::vector<Stage>& stages_;
  const LoopVars& vars_;
  VarBounds bounds_;
};

}  // namespace

LoopVars MakeLoopVars(const State& state) {
  LoopVars vars(state.num_stages());
  for (int s = 0; s < state.num_stages(); ++s)
    for (const IterNode& node : state.stage(s).nodes) vars[s].push_back(te::MakeVar(node.name));
  return vars;
}

LoopPath EnclosingLoops(const State& state, int stage) {
  const auto* at = std::get_if<ComputeAtIter>(&state.stage(stage).location);
  if (!at) return {};
  LoopPath path = EnclosingLoops(state, at->target_stage);
  const Stage& target = state.stage(at->target_stage);
  for (const Iterator& it : target.iters) {
    path.emplace_back(at->target_stage, it.node);
    if (it.node == at->target_node) break;
  }
  return path;
}

absl::StatusOr<std::vector<Region>> InferRegions(const State& state, const LoopVars& vars) {
  std::vector<Stage> stages = state.stages();
  return RegionInference(state, &stages, vars).Run();
}

absl::Status InferBound(State* state) {
  // Kept with the state: its copies and the steps after reuse it.
  state->set_effective_memo(EffectiveStagesOf(*state));
  LoopVars vars = MakeLoopVars(*state);
  std::vector<Stage> stages = state->stages();
  absl::StatusOr<std::vector<Region>> regions = RegionInference(*state, &stages, vars).Run();
  if (!regions.ok()) return regions.status();
  state->mutable_stages() = std::move(stages);
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
