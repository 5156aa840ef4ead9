#include "common/lower/passes/build_loop_nest.h"

#include "absl/strings/str_cat.h"
#include "common/lower/passes/auto_unroll.h"
#include "common/schedule/node_values.h"
#include "common/te/arith/interval.h"
#include "common/te/arith/simplify.h"
#include "common/te/expr_util.h"
#include "common/te/tensor.h"

namespace tuneforge::lower {
namespace {

using schedule::IterAnnotation;
using schedule::IterKind;
using schedule::Stage;

// vthread interleaves virtual threads on a GPU; on a CPU its iterations
// simply run in order.
ForKind KindOf(IterAnnotation a, bool gpu) {
  switch (a) {
    case IterAnnotation::kNone: return ForKind::kSerial;
    case IterAnnotation::kUnroll: return ForKind::kUnrolled;
    case IterAnnotation::kVectorize: return ForKind::kVectorized;
    case IterAnnotation::kParallel: return ForKind::kParallel;
    case IterAnnotation::kVThread: return gpu ? ForKind::kVThread : ForKind::kSerial;
    case IterAnnotation::kBlockX: return ForKind::kBlockX;
    case IterAnnotation::kBlockY: return ForKind::kBlockY;
    case IterAnnotation::kBlockZ: return ForKind::kBlockZ;
    case IterAnnotation::kThreadX: return ForKind::kThreadX;
    case IterAnnotation::kThreadY: return ForKind::kThreadY;
    case IterAnnotation::kThreadZ: return ForKind::kThreadZ;
  }
  return ForKind::kSerial;
}

Expr AllOf(const std::vector<Expr>& conds) {
  Expr out;
  for (const Expr& c : conds) out = out ? te::LogicalAnd(out, c) : c;
  return out;
}

class NestBuilder {
 public:
  explicit NestBuilder(const LowerContext& ctx) : ctx_(ctx) {
    for (int s = 0; s < ctx.state->num_stages(); ++s)
      for (const schedule::Iterator& it : ctx.stage(s).iters)
        loop_bounds_[ctx.vars[s][it.node].get()] = {0, ctx.stage(s).nodes[it.node].extent - 1};
  }

  Stmt Build() {
    std::vector<Stmt> parts;
    for (int s : ctx_.root_stages)
      if (!IsHoisted(s)) parts.push_back(StageNest(s));
    Stmt body = MakeSeq(std::move(parts));
    // Intermediate stages at root live for the whole kernel.
    for (auto it = ctx_.root_stages.rbegin(); it != ctx_.root_stages.rend(); ++it)
      if (!ctx_.is_argument[*it] && !IsHoisted(*it)) body = MakeAllocate(ctx_.buffers[*it], body);
    return body;
  }

  // Each hoisted stage's nest inside serial loops over the enclosing loops
  // its region moves with: every slice of its packed buffer, once. A stage
  // packed whole (at root) is computed over its definition's axes instead
  // of its scheduled loops: its packed layout follows its reader, so its
  // schedule cannot change the kernel, and this way every program of a
  // workload shares one prepack function, which a builder's function cache
  // compiles once (a Winograd kernel transform's sampled tiles and pragmas
  // made a new one for a quarter of a tuning's candidates).
  Stmt BuildPrepack() {
    std::vector<Stmt> parts;
    for (const auto& [s, hoisted] : ctx_.hoisted) {
      Stmt nest = hoisted.outer.empty() ? DefinitionNest(s) : StageNest(s);
      for (auto l = hoisted.outer.rbegin(); l != hoisted.outer.rend(); ++l)
        nest = MakeFor(l->first, l->second, ForKind::kSerial, nest);
      parts.push_back(nest);
    }
    Stmt body = MakeSeq(std::move(parts));
    for (const auto& [s, hoisted] : ctx_.hoisted)
      if (hoisted.prepack_only) body = MakeAllocate(hoisted.packed, body);
    return body;
  }

 private:
  bool IsHoisted(int s) const { return ctx_.hoisted.count(s) > 0; }

  // Where element `index` (relative to its region) of stage s is stored: its
  // buffer, or for a hoisted stage the slice of its packed buffer that the
  // current iteration of its moving loops reads.
  std::pair<te::Buffer, std::vector<Expr>> Location(int s, std::vector<Expr> index) const {
    index = ctx_.Stored(s, std::move(index));  // arguments keep the tensor's order
    auto h = ctx_.hoisted.find(s);
    if (h == ctx_.hoisted.end()) return {ctx_.buffers[s], std::move(index)};
    std::vector<Expr> full = h->second.slot;
    full.insert(full.end(), index.begin(), index.end());
    return {h->second.packed, std::move(full)};
  }

  // Reads of other stages become loads of their buffers, relative to the
  // start of the region the buffer holds.
  Expr ReadsToLoads(const Expr& e) const {
    return te::ReplaceReads(e, [&](const te::TensorRead& r, const Expr&) -> Expr {
      int p = ctx_.state->dag()->IndexOf(r.tensor.get());
      std::vector<Expr> idx = r.indices;
      if (ctx_.is_argument[p]) return te::MakeBufferLoad(ctx_.buffers[p], std::move(idx), r.tensor->dtype);
      for (size_t d = 0; d < idx.size(); ++d) idx[d] = idx[d] - ctx_.regions[p].min[d];
      auto [buffer, at] = Location(p, std::move(idx));
      return te::MakeBufferLoad(buffer, std::move(at), r.tensor->dtype);
    });
  }

  // The statement computing one point of stage s, given the value of each
  // leaf node. `init` writes the reduction's identity instead.
  Stmt PointStatement(int s, const std::vector<Expr>& leaf_values, bool init) const {
    const Stage& stage = ctx_.stage(s);
    std::vector<Expr> values = schedule::NodeValues(stage, leaf_values);
    std::vector<Expr> guards = schedule::SplitGuards(stage, values, init);
    return PointAt(s, values, std::move(guards), init);
  }

  // The same, given the value of each of the op's axes (spatial, then
  // reduction) and the conditions that keep them in range.
  Stmt PointAt(int s, const std::vector<Expr>& values, std::vector<Expr> guards, bool init) const {
    const Stage& stage = ctx_.stage(s);
    const te::TensorNode& op = *stage.op;
    te::VarMap axis_map;
    std::vector<Expr> index;
    bool attached = std::holds_alternative<schedule::ComputeAtIter>(stage.location);
    std::vector<EndTest> past_end;
    for (size_t d = 0; d < op.axes.size(); ++d) {
      Expr coord = ctx_.regions[s].min[d] + values[d];
      axis_map[op.axes[d].var.get()] = coord;
      index.push_back(values[d]);
      // An attached region may reach past the tensor at the edges.
      if (attached) {
        past_end.push_back({guards.size(), coord, op.shape[d]});
        guards.push_back(coord < Expr(op.shape[d]));
        guards.push_back(coord >= Expr(0));
      }
    }
    const Expr& body = ctx_.bodies[s];
    auto [out, at] = Location(s, index);
    index = std::move(at);
    Stmt store;
    if (const te::Reduce* red = body.as<te::Reduce>()) {
      if (init) {
        store = MakeStore(out, index, te::CombinerIdentity(red->combiner, op.dtype));
      } else {
        for (size_t r = 0; r < red->axes.size(); ++r)
          axis_map[red->axes[r].var.get()] = values[op.axes.size() + r];
        Expr source = ReadsToLoads(te::Substitute(red->source, axis_map));
        Expr self = te::MakeBufferLoad(out, index, op.dtype);
        store = MakeStore(out, index, te::CombinerApply(red->combiner, self, source));
        if (red->condition)
          guards.push_back(ReadsToLoads(te::Substitute(red->condition, axis_map)));
      }
    } else {
      store = MakeStore(out, index, ReadsToLoads(te::Substitute(body, axis_map)));
    }
    for (auto t = past_end.rbegin(); t != past_end.rend(); ++t)
      if (CanOverrunTheEnd(s, *t, store, guards)) guards.erase(guards.begin() + static_cast<long>(t->position));
    Expr cond = AllOf(guards);
    return cond ? MakeIf(cond, store) : store;
  }

  // An attached stage's test that its point is inside the tensor along one
  // axis: guards[position] is `coord < shape`.
  struct EndTest {
    size_t position;
    Expr coord;
    int64_t shape;
  };

  // Whether an attached stage's point may also be computed where its region
  // reaches past the tensor's end along test.coord's axis (tiles that do not
  // divide it): then its tiles all run the same untested code, the last one
  // included. Those elements land in its own buffer, which holds the whole
  // region, and no consumer stores them to a tensor (its own tests keep it
  // inside), so it is safe when every load the point makes stays inside its
  // buffer: one provably inside over the loops' whole ranges (a local or
  // packed tile; a packed constant is zero past the tensor), or one that
  // does not vary with the axis's loops (a matmul's A along j), which the
  // other tests keep inside as before: this one holds for some value of
  // those loops whatever the others are (the axis's first tile starts
  // inside the tensor).
  bool CanOverrunTheEnd(int s, const EndTest& test, const Stmt& store, const std::vector<Expr>& guards) const {
    if (ctx_.options.gpu || ctx_.is_argument[s]) return false;
    std::vector<const te::VarNode*> axis_vars;
    te::PostOrderVisit(test.coord, [&](const Expr& x) {
      if (const auto* ref = x.as<te::VarRef>()) axis_vars.push_back(ref->var.get());
    });
    bool safe = true, relies_on_other_tests = false;
    auto check = [&](const Expr& e) {
      te::PostOrderVisit(e, [&](const Expr& x) {
        const auto* load = x.as<te::BufferLoad>();
        if (!load || !safe) return;
        for (size_t d = 0; d < load->indices.size() && safe; ++d) {
          const Expr& index = load->indices[d];
          auto range = te::arith::ConstBounds(te::arith::Simplify(index, loop_bounds_), loop_bounds_);
          if (range && range->lo >= 0 && range->hi < load->buffer->shape[d]) continue;
          for (const te::VarNode* v : axis_vars) safe = safe && !te::UsesVar(index, v);
          relies_on_other_tests = true;
        }
      });
    };
    for (const Expr& g : guards) check(g);
    if (const auto* st = store.as<Store>()) check(st->value);
    if (!safe || !relies_on_other_tests) return safe;
    std::optional<te::arith::IntInterval> coord = te::arith::ConstBounds(test.coord, loop_bounds_);
    return coord && coord->lo < test.shape;
  }

  // Stages computed inside loop (s, node), each in its own buffer that
  // lives for the rest of the loop body.
  Stmt WithAttached(int s, int node, Stmt rest) {
    auto it = ctx_.attached.find({s, node});
    if (it == ctx_.attached.end()) return rest;
    std::vector<Stmt> parts;
    for (int a : it->second)
      if (!IsHoisted(a)) parts.push_back(StageNest(a));
    parts.push_back(rest);
    Stmt body = MakeSeq(std::move(parts));
    for (auto a = it->second.rbegin(); a != it->second.rend(); ++a)
      if (!IsHoisted(*a)) body = MakeAllocate(ctx_.buffers[*a], body);
    return body;
  }

  // Where a reduction's init goes: before its first reduction loop that runs
  // more than once (the last one if none does). Loops of extent 1 outside it
  // run once, so each element is still set once before its first update, and
  // a tile whose outer reduction loops are split to 1 is no longer zeroed
  // whole ahead of its updates: each element's init then sits beside its
  // update, where ChainAccumulations makes the two one store.
  static int InitLoop(const Stage& stage) {
    int last = -1;
    for (int i = 0; i < static_cast<int>(stage.iters.size()); ++i) {
      const schedule::IterNode& node = stage.iter_node(i);
      if (node.kind != IterKind::kReduce) continue;
      if (node.extent > 1) return i;
      last = i;
    }
    return last;
  }

  // Reduction init: loops over the spatial iterators inside the reduction
  // loop r0 (see InitLoop), with their own variables, writing the identity.
  Stmt InitNest(int s, int r0, std::vector<Expr> leaf_values) const {
    const Stage& stage = ctx_.stage(s);
    std::vector<std::pair<Var, int>> loops;  // (var, iterator index)
    for (size_t i = r0; i < stage.iters.size(); ++i) {
      const schedule::Iterator& it = stage.iters[i];
      const schedule::IterNode& node = stage.nodes[it.node];
      if (node.kind == IterKind::kReduce) {
        leaf_values[it.node] = Expr(0);
        continue;
      }
      Var v = te::MakeVar(absl::StrCat(ctx_.vars[s][it.node]->name, ".init"));
      leaf_values[it.node] = Expr(v);
      loops.emplace_back(v, static_cast<int>(i));
    }
    Stmt body = PointStatement(s, leaf_values, /*init=*/true);
    for (auto l = loops.rbegin(); l != loops.rend(); ++l) {
      const schedule::Iterator& it = stage.iters[l->second];
      ForKind kind = KindOf(it.annotation, ctx_.options.gpu);
      if (kind == ForKind::kParallel) kind = ForKind::kSerial;  // already inside a parallel region
      body = MakeFor(l->first, stage.nodes[it.node].extent, kind, body);
    }
    return body;
  }

  // Stage s at root over its op's own axes, ignoring its schedule: the
  // outermost axis parallel, the reduction innermost, no splits or pragmas.
  Stmt DefinitionNest(int s) const {
    const Stage& stage = ctx_.stage(s);
    const int spatial = stage.num_spatial_axes();
    const te::Reduce* red = ctx_.bodies[s].as<te::Reduce>();
    const int axes = spatial + (red ? static_cast<int>(red->axes.size()) : 0);
    std::vector<Expr> values(axes);
    for (int i = 0; i < axes; ++i) values[i] = Expr(ctx_.vars[s][i]);
    Stmt body = PointAt(s, values, {}, /*init=*/false);
    for (int i = axes - 1; i >= spatial; --i)
      body = MakeFor(ctx_.vars[s][i], stage.nodes[i].extent, ForKind::kSerial, body);
    if (red) {
      std::vector<Expr> init_values = values;
      for (int i = spatial; i < axes; ++i) init_values[i] = Expr(0);
      body = MakeSeq({PointAt(s, init_values, {}, /*init=*/true), body});
    }
    for (int i = spatial - 1; i >= 0; --i)
      body = MakeFor(ctx_.vars[s][i], stage.nodes[i].extent, i == 0 ? ForKind::kParallel : ForKind::kSerial, body);
    return body;
  }

  Stmt StageNest(int s) {
    const Stage& stage = ctx_.stage(s);
    int n = static_cast<int>(stage.iters.size());
    std::vector<Expr> leaf_values(stage.nodes.size());
    for (const schedule::Iterator& it : stage.iters) leaf_values[it.node] = Expr(ctx_.vars[s][it.node]);
    const int r0 = ctx_.bodies[s].as<te::Reduce>() ? InitLoop(stage) : -1;
    Stmt body = PointStatement(s, leaf_values, /*init=*/false);
    for (int i = n - 1; i >= 0; --i) {
      const schedule::Iterator& it = stage.iters[i];
      body = WithAttached(s, it.node, body);
      body = MakeFor(ctx_.vars[s][it.node], stage.nodes[it.node].extent, KindOf(it.annotation, ctx_.options.gpu), body);
      if (i == r0) body = MakeSeq({InitNest(s, r0, leaf_values), body});
      if (i == 0 && stage.auto_unroll_max_step > 0) {
        body = MarkAutoUnroll(body, stage.auto_unroll_max_step, governed_);
        VisitStmts(body, [&](const Stmt& x) {
          if (const For* f = x.as<For>()) governed_.insert(f->var.get());
        });
      }
    }
    if (n == 0) body = WithAttached(s, -1, body);
    return body;
  }

  const LowerContext& ctx_;
  te::arith::VarBounds loop_bounds_;  // every loop variable's range
  GovernedLoops governed_;  // loops a stage's own pragma has marked
};

}  // namespace

absl::StatusOr<Stmt> BuildLoopNest(const LowerContext& ctx) { return NestBuilder(ctx).Build(); }

Stmt BuildPrepackNest(const LowerContext& ctx) {
  if (ctx.hoisted.empty()) return Stmt();
  return NestBuilder(ctx).BuildPrepack();
}

}  // namespace tuneforge::lower
