#include "common/lower/passes/unroll_tile_loops.h"

#include "common/lower/passes/vectorize.h"
#include "common/lower/stmt_functor.h"
#include "common/te/expr_util.h"

namespace tuneforge::lower {
namespace {

// Statements of a tile LLVM still unrolls fully (a vector multiply-add is
// about five instructions, LLVM's O3 threshold about 300 of them).
constexpr int64_t kMaxTileStmts = 64;

struct Marked {
  Stmt stmt;
  int64_t stores = 0;     // once the marked loops are unrolled
  bool has_loop = false;  // a loop left inside
};

// `in_reduction`: some loop around s accumulates; `parent_reduces`: the
// nearest one does. A loop that accumulates is unrolled only inside another
// that does (a tap inside the channel loop), so an accumulating loop stays
// innermost, not a spatial loop around the tile.
Marked Mark(const Stmt& s, bool in_reduction, bool parent_reduces) {
  if (!s) return {s, 0, false};
  if (const auto* f = s.as<For>()) {
    const bool reduces = f->kind == ForKind::kSerial && AccumulatesOver(*f);
    Marked body = Mark(f->body, in_reduction || reduces, reduces);
    auto loop = [&](ForKind kind) {
      return body.stmt.same_as(f->body) && kind == f->kind ? s : MakeFor(f->var, f->extent, kind, body.stmt);
    };
    if (f->kind == ForKind::kUnrolled) return {loop(f->kind), f->extent * body.stores, body.has_loop};
    // A vectorized loop becomes vector statements (before this pass in the
    // pipeline, not at all in a program's identity: both count it so).
    if (f->kind == ForKind::kVectorized && f->extent <= kMaxVectorLanes)
      return {loop(f->kind), body.stores, body.has_loop};
    if (in_reduction && f->kind == ForKind::kSerial && !body.has_loop && (!reduces || parent_reduces) &&
        f->extent * body.stores <= kMaxTileStmts)
      return {loop(ForKind::kUnrolled), f->extent * body.stores, false};
    return {loop(f->kind), body.stores, true};
  }
  if (s.as<Store>()) return {s, 1, false};
  Marked out;
  out.stmt = MapStmtChildren(s, [&](const Stmt& c) {
    Marked m = Mark(c, in_reduction, parent_reduces);
    out.stores += m.stores;
    out.has_loop = out.has_loop || m.has_loop;
    return m.stmt;
  });
  return out;
}

}  // namespace

bool AccumulatesOver(const For& loop) {
  bool accumulates = false;
  VisitStmts(loop.body, [&](const Stmt& x) {
    const auto* st = x.as<Store>();
    if (!st || accumulates) return;
    const auto* add = st->value.as<te::Binary>();
    if (!add || add->op != te::BinOp::kAdd) return;
    if (!LoadsStoredElement(add->a, *st) && !LoadsStoredElement(add->b, *st)) return;
    bool moves = false;
    for (const te::Expr& i : st->indices) moves = moves || te::UsesVar(i, loop.var.get());
    accumulates = !moves;
  });
  return accumulates;
}

Stmt UnrollTileLoops(const Stmt& body) { return Mark(body, false, false).stmt; }

}  // namespace tuneforge::lower
