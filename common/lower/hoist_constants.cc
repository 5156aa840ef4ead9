#include "common/lower/hoist_constants.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/schedule/effective_body.h"
#include "common/te/arith/interval.h"
#include "common/te/arith/simplify.h"
#include "common/te/arith/sum_form.h"
#include "common/te/expr_util.h"
#include "common/te/tensor.h"

namespace tuneforge::lower {
namespace {

// A packed copy repeats a region once per iteration of the loops it moves
// with; where regions overlap (a halo) that is more than the tensor. Beyond
// this many times its elements, packing once costs more memory than the
// per-call copy costs time.
constexpr int64_t kMaxPackedGrowth = 4;
constexpr int64_t kMaxPackedBytes = int64_t{1} << 30;
// The prepack computes a region once per iteration of its moving loops,
// also where they revisit a slot (a fused loop over rows and columns).
constexpr int64_t kMaxPrepackWork = 64;

// Whether stage s reads constants only: constant placeholders, or stages
// precomputed whole (at root).
bool ReadsOnlyConstants(const LowerContext& ctx, int s, const std::map<int, HoistedStage>& hoisted) {
  return ctx.ReadsOnlyConstants(s, [&](int producer) {
    auto it = hoisted.find(producer);
    return it != hoisted.end() && it->second.outer.empty();
  });
}

bool HostsStages(const LowerContext& ctx, int s) {
  for (const auto& [at, stages] : ctx.attached)
    if (at.first == s && !stages.empty()) return true;
  return false;
}

// The enclosing loops that `region`'s start depends on, outermost first;
// nullopt when it reads a variable that is not an enclosing loop.
std::optional<std::vector<std::pair<te::Var, int64_t>>> MovingLoops(const LowerContext& ctx, int s) {
  absl::flat_hash_set<const te::VarNode*> used;
  for (const te::Expr& m : ctx.regions[s].min)
    te::PostOrderVisit(m, [&](const te::Expr& e) {
      if (const auto* v = e.as<te::VarRef>()) used.insert(v->var.get());
    });
  std::vector<std::pair<te::Var, int64_t>> outer;
  for (const auto& [stage, node] : schedule::EnclosingLoops(*ctx.state, s)) {
    const te::Var& var = ctx.vars[stage][node];
    if (used.erase(var.get()) > 0) outer.emplace_back(var, ctx.stage(stage).nodes[node].extent);
  }
  if (!used.empty()) return std::nullopt;
  return outer;
}

// The slots of a packed buffer: its leading extents, and the index of the
// slice the current iteration reads.
struct Slots {
  std::vector<int64_t> shape;
  std::vector<te::Expr> index;
};

// Ansor's layout: the region's start is a sum of scaled terms, each in one
// moving loop's variable (k.0 * 32 + k.1, floormod(fused, 2) * 512 +
// j.2 * 32); one slot dimension per term, ordered by its loop's nesting, so
// the tiles the kernel walks in order lie in order in memory. A fused loop
// that also walks rows the region does not depend on adds only the term it
// contributes (floormod(fused, 2): 2 slots, not the fused extent). Empty
// when a term mixes loops or can be negative.
Slots TermSlots(const LowerContext& ctx, int s, const std::vector<std::pair<te::Var, int64_t>>& outer) {
  te::arith::VarBounds bounds;
  for (const auto& [var, extent] : outer) bounds[var.get()] = te::arith::IntInterval{0, extent - 1};
  struct Term {
    te::Expr atom;
    size_t loop;  // position of its variable among `outer`
    int64_t count;
  };
  std::vector<Term> terms;
  for (const te::Expr& start : ctx.regions[s].min) {
    te::arith::SumForm form = te::arith::ToSumForm(te::arith::Simplify(start, bounds));
    for (const te::arith::SumTerm& t : form.terms) {
      std::optional<size_t> loop;
      for (size_t l = 0; l < outer.size(); ++l) {
        if (!te::UsesVar(t.atom, outer[l].first.get())) continue;
        if (loop) return {};  // mixes two loops
        loop = l;
      }
      std::optional<te::arith::IntInterval> range = te::arith::ConstBounds(t.atom, bounds);
      if (!loop || !range || range->lo < 0) return {};
      if (range->hi == 0) continue;  // always 0 (a loop of extent 1)
      bool seen = std::any_of(terms.begin(), terms.end(),
                              [&](const Term& u) { return te::StructurallyEqual(u.atom, t.atom); });
      if (!seen) terms.push_back(Term{t.atom, *loop, range->hi + 1});
    }
  }
  std::stable_sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.loop < b.loop; });
  Slots slots;
  for (const Term& t : terms) {
    slots.shape.push_back(t.count);
    slots.index.push_back(t.atom);
  }
  return slots;
}

// Otherwise one slice per iteration of the moving loops.
Slots LoopSlots(const std::vector<std::pair<te::Var, int64_t>>& outer) {
  Slots slots;
  for (const auto& [var, extent] : outer) {
    slots.shape.push_back(extent);
    slots.index.push_back(te::Expr(var));
  }
  return slots;
}

}  // namespace

void HoistConstantStages(LowerContext* ctx) {
  if (!ctx->options.hoist_constants || ctx->options.gpu) return;
  const schedule::State& state = *ctx->state;
  for (int s = 0; s < state.num_stages(); ++s) {
    const schedule::Stage& stage = state.stage(s);
    if (stage.is_placeholder() || schedule::IsInlined(stage) || ctx->is_argument[s]) continue;
    if (!ReadsOnlyConstants(*ctx, s, ctx->hoisted) || HostsStages(*ctx, s)) continue;
    auto outer = MovingLoops(*ctx, s);
    if (!outer) continue;
    int64_t passes = 1;  // elements the prepack computes
    for (const auto& [var, extent] : *outer) passes *= extent;
    for (int64_t e : ctx->regions[s].extent) passes *= e;
    if (passes > kMaxPrepackWork * stage.op->num_elements()) continue;
    Slots slots = outer->empty() ? Slots{} : TermSlots(*ctx, s, *outer);
    if (slots.index.empty()) slots = LoopSlots(*outer);
    std::vector<int64_t> shape = slots.shape;
    int64_t elements = 1;
    for (int64_t e : ctx->StoredExtents(s)) shape.push_back(e);
    for (int64_t e : shape) elements *= e;
    if (elements > kMaxPackedGrowth * stage.op->num_elements() ||
        elements * stage.op->dtype.bytes() > kMaxPackedBytes)
      continue;
    auto buf = std::make_shared<te::BufferNode>();
    buf->name = absl::StrCat(stage.op->name, ".packed");
    buf->dtype = stage.op->dtype;
    buf->shape = std::move(shape);
    ctx->hoisted[s] = HoistedStage{*std::move(outer), std::move(slots.index), buf};
  }
  for (auto& [s, h] : ctx->hoisted) {
    const std::vector<int>& consumers = state.dag()->analysis(s).consumers;
    h.prepack_only = !consumers.empty() && std::all_of(consumers.begin(), consumers.end(), [&](int c) {
      return ctx->hoisted.count(c) > 0;
    });
    if (!h.prepack_only) ctx->arguments.push_back(h.packed);
  }
}

}  // namespace tuneforge::lower
