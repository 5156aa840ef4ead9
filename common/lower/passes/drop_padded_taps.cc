#include "common/lower/passes/drop_padded_taps.h"

#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"
#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"

namespace tuneforge::lower {
namespace {

// 0, or a product with a zero factor, or either spread over lanes: a tap
// on a padded row of a tile vectorized along the row adds x8(0 * w).
bool AddsNothing(const te::Expr& e) {
  if (te::IsZeroConstant(e)) return true;
  if (const auto* b = e.as<te::Broadcast>()) return AddsNothing(b->value);
  const auto* m = e.as<te::Binary>();
  return m && m->op == te::BinOp::kMul && (te::IsZeroConstant(m->a) || te::IsZeroConstant(m->b));
}

// acc[i] = acc[i] + nothing.
bool IsPaddedTap(const Store& store) {
  const auto* add = store.value.as<te::Binary>();
  if (!add || add->op != te::BinOp::kAdd) return false;
  return (LoadsStoredElement(add->a, store) && AddsNothing(add->b)) ||
         (LoadsStoredElement(add->b, store) && AddsNothing(add->a));
}

Stmt Drop(const Stmt& s) {
  if (!s) return s;
  return std::visit(
      Overloaded{
          [&](const Store& n) -> Stmt { return IsPaddedTap(n) ? Stmt() : s; },
          [&](const For& n) -> Stmt {
            Stmt body = Drop(n.body);
            if (!body) return Stmt();
            return body.same_as(n.body) ? s : MakeFor(n.var, n.extent, n.kind, body);
          },
          [&](const Allocate& n) -> Stmt {
            Stmt body = Drop(n.body);
            if (!body) return Stmt();
            return body.same_as(n.body) ? s : MakeAllocate(n.buffer, body);
          },
          [&](const LetStmt& n) -> Stmt {
            Stmt body = Drop(n.body);
            if (!body) return Stmt();
            return body.same_as(n.body) ? s : MakeLet(n.var, n.value, body);
          },
          [&](const IfThenElse& n) -> Stmt {
            Stmt t = Drop(n.then_case), e = Drop(n.else_case);
            if (!t && !e) return Stmt();
            if (t.same_as(n.then_case) && e.same_as(n.else_case)) return s;
            return t ? MakeIf(n.condition, t, e) : MakeIf(te::LogicalNot(n.condition), e);
          },
          [&](const Seq& n) -> Stmt {
            std::vector<Stmt> out;
            for (const Stmt& c : n.stmts)
              if (Stmt r = Drop(c)) out.push_back(std::move(r));
            if (out.empty()) return Stmt();
            return MakeSeq(std::move(out));
          },
      },
      s.get()->v);
}

}  // namespace

Stmt DropPaddedTaps(const Stmt& body) { return Drop(body); }

}  // namespace tuneforge::lower
