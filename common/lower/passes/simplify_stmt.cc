#include "common/lower/passes/simplify_stmt.h"

#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"
#include "common/te/arith/simplify.h"

namespace tuneforge::lower {
namespace {

using te::arith::VarBounds;

class StmtSimplifier {
 public:
  explicit StmtSimplifier(VarBounds outer = {}) : bounds_(std::move(outer)) {}

  Stmt Run(const Stmt& s) {
    if (!s) return s;
    return std::visit(
        Overloaded{
            [&](const For& n) -> Stmt {
              if (n.extent == 1) {
                // The loop goes; its variable is 0 in every expression below
                // (substituted as each is simplified: one pass, not one per
                // removed loop over the whole body).
                zeros_[n.var.get()] = Expr(0);
                Stmt body = Run(n.body);
                zeros_.erase(n.var.get());
                // A loop bound to blocks or threads stays: it is part of the
                // launch (one block, or thread 0 of a wider block).
                if (IsGpuBinding(n.kind) && body) return MakeFor(n.var, 1, n.kind, body);
                return body;
              }
              bounds_[n.var.get()] = {0, n.extent - 1};
              Stmt body = Run(n.body);
              bounds_.erase(n.var.get());
              if (!body) return Stmt();
              return body.same_as(n.body) ? s : MakeFor(n.var, n.extent, n.kind, body);
            },
            [&](const Store& n) -> Stmt {
              return MapOwnExprs(s, [&](const Expr& e) { return Simp(e); });
            },
            [&](const Allocate& n) -> Stmt {
              Stmt body = Run(n.body);
              if (!body) return Stmt();
              return body.same_as(n.body) ? s : MakeAllocate(n.buffer, body);
            },
            [&](const IfThenElse& n) -> Stmt {
              Expr c = Simp(n.condition);
              if (const int64_t* v = te::AsIntConst(c)) return Run(*v ? n.then_case : n.else_case);
              Stmt t = Run(n.then_case), e = Run(n.else_case);
              if (!t && !e) return Stmt();
              if (!t) return MakeIf(te::LogicalNot(c), e);
              return MakeIf(c, t, e);
            },
            [&](const Seq& n) -> Stmt {
              std::vector<Stmt> out;
              for (const Stmt& c : n.stmts)
                if (Stmt r = Run(c)) out.push_back(std::move(r));
              if (out.empty()) return Stmt();  // nothing left runs
              return MakeSeq(std::move(out));
            },
            [&](const LetStmt& n) -> Stmt {
              Expr v = Simp(n.value);
              if (std::optional<te::arith::IntInterval> b = te::arith::ConstBounds(v, bounds_))
                bounds_[n.var.get()] = *b;
              Stmt body = Run(n.body);
              bounds_.erase(n.var.get());
              if (!body) return Stmt();
              return MakeLet(n.var, v, body);
            },
        },
        s.get()->v);
  }

 private:
  Expr Simp(const Expr& e) {
    return te::arith::Simplify(zeros_.empty() ? e : te::Substitute(e, zeros_), bounds_);
  }

  VarBounds bounds_;
  te::VarMap zeros_;  // variables of the extent-1 loops removed around here
};

}  // namespace

Stmt SimplifyStmt(const Stmt& body) { return StmtSimplifier().Run(body); }

Stmt SimplifyStmt(const Stmt& body, const VarBounds& outer) { return StmtSimplifier(outer).Run(body); }

}  // namespace tuneforge::lower
