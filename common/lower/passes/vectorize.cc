#include "common/lower/passes/vectorize.h"

#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"
#include "common/te/arith/simplify.h"

namespace tuneforge::lower {
namespace {


class LoopVectorizer {
 public:
  LoopVectorizer(const Var& var, int lanes) : var_(var), lanes_(lanes) {}

  // The vector form of `body`, or a null Stmt when it cannot be vectorized.
  Stmt Run(const Stmt& s) {
    if (!s) return s;
    return std::visit(
        Overloaded{
            [&](const For&) -> Stmt { return Stmt(); },
            [&](const Allocate&) -> Stmt { return Stmt(); },
            [&](const Store& n) -> Stmt {
              if (n.indices.size() != 1) return Stmt();
              Expr index = Vec(n.indices[0]);
              Expr value = Vec(n.value);
              if (!index.dtype().is_vector()) {
                // Every lane would write the same element (a reduction over
                // the vectorized loop): not vectorizable this way.
                if (value.dtype().is_vector()) return Stmt();
                return MakeStore(n.buffer, {index}, value);
              }
              if (!value.dtype().is_vector()) value = te::MakeBroadcast(value, lanes_);
              return MakeStore(n.buffer, {index}, value);
            },
            [&](const IfThenElse& n) -> Stmt {
              if (te::UsesVar(n.condition, var_.get())) return Stmt();
              Stmt t = Run(n.then_case);
              if (!t) return Stmt();
              Stmt e;
              if (n.else_case && !(e = Run(n.else_case))) return Stmt();
              return MakeIf(n.condition, t, e);
            },
            [&](const Seq& n) -> Stmt {
              std::vector<Stmt> out;
              for (const Stmt& c : n.stmts) {
                out.push_back(Run(c));
                if (!out.back()) return Stmt();
              }
              return MakeSeq(std::move(out));
            },
            [&](const LetStmt& n) -> Stmt {
              // Substituted: a let bound to a vector value is not worth keeping.
              return Run(SubstituteStmt(n.body, {{n.var.get(), n.value}}));
            },
        },
        s.get()->v);
  }

 private:
  Expr Vec(const Expr& e) {
    Expr ramp = te::MakeRamp(Expr(0), 1, lanes_);
    return te::arith::Simplify(te::Substitute(e, {{var_.get(), ramp}}));
  }

  Var var_;
  int lanes_;
};

Stmt VectorizeLoops(const Stmt& s) {
  if (!s) return s;
  Stmt t = MapStmtChildren(s, VectorizeLoops);
  const For* f = t.as<For>();
  if (!f || f->kind != ForKind::kVectorized || f->extent > kMaxVectorLanes) return t;
  // A loop around code that is already vector (an inner vectorized loop)
  // stays a loop: lanes of lanes have no machine form.
  bool has_vectors = false;
  VisitExprs(f->body, [&](const Expr& e) { has_vectors = has_vectors || e.dtype().is_vector(); });
  if (has_vectors) return t;
  Stmt vec = LoopVectorizer(f->var, static_cast<int>(f->extent)).Run(f->body);
  return vec ? vec : t;
}

}  // namespace

Stmt Vectorize(const Stmt& body) { return VectorizeLoops(body); }

}  // namespace tuneforge::lower
