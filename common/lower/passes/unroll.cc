// Unrolling in two walks. The first decides, bottom-up, which unrolled loops
// are too large to copy (from the sizes their bodies will have once the
// loops inside are unrolled) and makes those plain loops; it copies nothing.
// The second copies top-down, carrying the values of every unrolled loop
// above: each statement of the result is substituted once, with all its
// loop values at the same time. (Copying bottom-up substituted a nest's
// innermost statements once per enclosing unrolled loop, over ever larger
// copies: most of a Winograd transform's compile time.)
#include "common/lower/passes/unroll.h"

#include "common/lower/stmt_functor.h"
#include "common/te/arith/value_under.h"
#include "common/overloaded.h"

namespace tuneforge::lower {
namespace {

// Beyond this many statements, unrolling costs more compile time than it
// can win back.
constexpr int64_t kMaxUnrolledStmts = 4096;

// The size a statement will have after unrolling: its statement count, and
// when it will be a sequence, its number of children (sequences flatten
// into the sequences around them).
struct UnrolledSize {
  int64_t stmts = 0;
  int64_t seq_children = -1;  // -1: not a sequence
};

struct Planned {
  Stmt stmt;
  UnrolledSize size;
};

UnrolledSize Single(int64_t stmts) { return {stmts, -1}; }

// The size of `extent` copies of a body of size `body`, as one sequence.
UnrolledSize CopiesSize(int64_t extent, UnrolledSize body) {
  if (extent == 1) return body;
  if (body.seq_children >= 0) return {1 + extent * (body.stmts - 1), extent * body.seq_children};
  return {1 + extent * body.stmts, extent};
}

// Marks unrolled loops too large to copy as plain loops (left marked, LLVM
// would unroll them fully itself and take minutes over the result).
Planned PlanUnroll(const Stmt& s) {
  if (!s) return {s, {}};
  return std::visit(
      Overloaded{
          [&](const For& n) -> Planned {
            Planned body = PlanUnroll(n.body);
            if (n.kind == ForKind::kUnrolled && n.extent * body.size.stmts <= kMaxUnrolledStmts) {
              Stmt kept = body.stmt.same_as(n.body) ? s : MakeFor(n.var, n.extent, n.kind, body.stmt);
              return {kept, CopiesSize(n.extent, body.size)};
            }
            const ForKind kind = n.kind == ForKind::kUnrolled ? ForKind::kSerial : n.kind;
            Stmt loop = body.stmt.same_as(n.body) && kind == n.kind ? s : MakeFor(n.var, n.extent, kind, body.stmt);
            return {loop, Single(1 + body.size.stmts)};
          },
          [&](const Seq& n) -> Planned {
            std::vector<Stmt> children;
            bool changed = false;
            UnrolledSize size{1, 0};
            for (const Stmt& c : n.stmts) {
              Planned p = PlanUnroll(c);
              changed = changed || !p.stmt.same_as(c);
              children.push_back(p.stmt);
              if (!c) continue;
              if (p.size.seq_children >= 0) {
                size.stmts += p.size.stmts - 1;
                size.seq_children += p.size.seq_children;
              } else {
                size.stmts += p.size.stmts;
                size.seq_children += 1;
              }
            }
            return {changed ? MakeSeq(std::move(children)) : s, size};
          },
          [&](const auto&) -> Planned {
            int64_t stmts = 1;
            Stmt t = MapStmtChildren(s, [&](const Stmt& c) {
              Planned p = PlanUnroll(c);
              stmts += p.size.stmts;
              return p.stmt;
            });
            return {t, Single(stmts)};
          },
      },
      s.get()->v);
}

// e with the unrolled loops' values substituted. A select whose condition
// those values decide becomes its taken branch before the branch is copied:
// inlined constant matrices (Winograd's, select chains over both indices)
// are then copied as one constant, not as the whole chain.
Expr SubstituteLoopValues(const Expr& e, const te::VarMap& values) {
  std::function<Expr(const Expr&)> rec = [&](const Expr& x) -> Expr {
    if (const auto* v = x.as<te::VarRef>()) {
      auto it = values.find(v->var.get());
      return it == values.end() ? x : it->second;
    }
    if (const auto* s = x.as<te::Select>()) {
      if (std::optional<te::Scalar> c = te::arith::ValueUnder(s->cond, values)) {
        const Expr& taken = te::Truthy(s->cond.dtype(), *c) ? s->true_value : s->false_value;
        if (taken.dtype() == x.dtype()) return rec(taken);
      }
    }
    return te::MapChildren(x, rec);
  };
  return rec(e);
}

// s with every loop still marked unrolled copied per iteration, and the
// values of the unrolled loops around s (`values`) substituted.
Stmt CopyUnrolled(const Stmt& s, te::VarMap& values) {
  if (!s) return s;
  if (const For* f = s.as<For>(); f && f->kind == ForKind::kUnrolled) {
    std::vector<Stmt> copies;
    copies.reserve(f->extent);
    for (int64_t i = 0; i < f->extent; ++i) {
      values[f->var.get()] = Expr(i);
      copies.push_back(CopyUnrolled(f->body, values));
    }
    values.erase(f->var.get());
    return MakeSeq(std::move(copies));
  }
  // A condition the loop values decide (a reduction's `where` over an
  // unrolled constant matrix): only the branch taken is copied (null when
  // there is none; simplification after unrolling drops empty statements).
  if (const IfThenElse* branch = s.as<IfThenElse>(); branch && !values.empty()) {
    if (std::optional<te::Scalar> c = te::arith::ValueUnder(branch->condition, values))
      return CopyUnrolled(te::Truthy(branch->condition.dtype(), *c) ? branch->then_case : branch->else_case,
                          values);
  }
  Stmt t = MapStmtChildren(s, [&](const Stmt& c) { return CopyUnrolled(c, values); });
  if (values.empty()) return t;
  return MapOwnExprs(t, [&](const Expr& e) { return SubstituteLoopValues(e, values); });
}

}  // namespace

Stmt Unroll(const Stmt& body) {
  te::VarMap values;
  return CopyUnrolled(PlanUnroll(body).stmt, values);
}

}  // namespace tuneforge::lower
