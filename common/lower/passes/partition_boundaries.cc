#include "common/lower/passes/partition_boundaries.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/lower/passes/simplify_stmt.h"
#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"
#include "common/te/arith/sum_form.h"
#include "common/te/expr_util.h"

namespace tuneforge::lower {
namespace {

using te::arith::IntInterval;
using te::arith::VarBounds;

// Copies made by one rewrite stay under this many statements; past it the
// compile time grows faster than the kernel gains.
constexpr int64_t kMaxCopiedStmts = 4096;
// A loop is cut into at most this many pieces.
constexpr size_t kMaxPieces = 5;
// Tests hoisted above one innermost loop, one inside the other: the four
// borders of a window (up to 2^4 copies before the ranges prune the
// impossible ones: 9 for a 2-D border).
constexpr int kMaxUnswitchDepth = 4;

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max() / 4;

// `coef * atom + constant >= 0`: a comparison over index values with one
// term, from <, <=, > or >=.
struct LinearTest {
  te::Expr atom;
  int64_t coef = 0;
  int64_t constant = 0;

  // The values of the atom for which the test holds.
  IntInterval Holds() const {
    if (coef > 0) return {-te::arith::FloorDivInt(constant, coef), kUnbounded};
    return {-kUnbounded, te::arith::FloorDivInt(constant, -coef)};
  }
  // ... and for which it fails.
  IntInterval Fails() const {
    IntInterval h = Holds();
    if (coef > 0) return {-kUnbounded, h.lo - 1};
    return {h.hi + 1, kUnbounded};
  }
};

bool IsIndexComparison(const te::Expr& e) {
  const auto* b = e.as<te::Binary>();
  return b && te::IsComparison(b->op) && b->a.dtype() == te::DType::Index() &&
         b->b.dtype() == te::DType::Index();
}

std::optional<LinearTest> AsLinearTest(const te::Expr& e) {
  if (!IsIndexComparison(e)) return std::nullopt;
  const auto& b = *e.as<te::Binary>();
  te::arith::SumForm f;
  switch (b.op) {
    case te::BinOp::kGE:  // a - b >= 0
    case te::BinOp::kGT:  // a - b - 1 >= 0
      f = te::arith::ToSumForm(b.a);
      f.Add(te::arith::ToSumForm(b.b), -1);
      if (b.op == te::BinOp::kGT) f.constant -= 1;
      break;
    case te::BinOp::kLE:  // b - a >= 0
    case te::BinOp::kLT:  // b - a - 1 >= 0
      f = te::arith::ToSumForm(b.b);
      f.Add(te::arith::ToSumForm(b.a), -1);
      if (b.op == te::BinOp::kLT) f.constant -= 1;
      break;
    default:
      return std::nullopt;
  }
  if (f.terms.size() != 1 || !f.dropped.empty()) return std::nullopt;
  return LinearTest{f.terms[0].atom, f.terms[0].coef, f.constant};
}

// Whether evaluating e could fail or read memory (a hoisted test must not).
bool IsPure(const te::Expr& e) {
  bool pure = true;
  te::PostOrderVisit(e, [&](const te::Expr& x) {
    if (x.as<te::BufferLoad>() || x.as<te::TensorRead>()) pure = false;
    const auto* b = x.as<te::Binary>();
    if (b && (b->op == te::BinOp::kDiv || b->op == te::BinOp::kMod ||
              b->op == te::BinOp::kFloorDiv || b->op == te::BinOp::kFloorMod) &&
        !te::AsIntConst(b->b))
      pure = false;
  });
  return pure;
}

// Every index comparison in the statement, in the order met.
std::vector<te::Expr> Comparisons(const Stmt& s) {
  std::vector<te::Expr> out;
  VisitExprs(s, [&](const te::Expr& top) {
    te::PostOrderVisit(top, [&](const te::Expr& e) {
      if (IsIndexComparison(e)) out.push_back(e);
    });
  });
  return out;
}

bool IsVarRef(const te::Expr& e, const te::VarNode* var) {
  const auto* v = e.as<te::VarRef>();
  return v && v->var.get() == var;
}

// Variables bound inside s (loops and lets): a test that uses one is not
// invariant in s.
std::set<const te::VarNode*> BoundInside(const Stmt& s) {
  std::set<const te::VarNode*> out;
  VisitStmts(s, [&](const Stmt& x) {
    if (const auto* f = x.as<For>()) out.insert(f->var.get());
    if (const auto* l = x.as<LetStmt>()) out.insert(l->var.get());
  });
  return out;
}

bool UsesAny(const te::Expr& e, const std::set<const te::VarNode*>& vars) {
  bool uses = false;
  te::PostOrderVisit(e, [&](const te::Expr& x) {
    if (const auto* v = x.as<te::VarRef>(); v && vars.count(v->var.get())) uses = true;
  });
  return uses;
}

bool HasLoop(const Stmt& s) {
  bool found = false;
  VisitStmts(s, [&](const Stmt& x) { found = found || x.as<For>() != nullptr; });
  return found;
}

te::Expr ReplaceExpr(const te::Expr& e, const te::Expr& from, const te::Expr& to) {
  if (te::StructurallyEqual(e, from)) return to;
  return te::MapChildren(e, [&](const te::Expr& c) { return ReplaceExpr(c, from, to); });
}

Stmt ReplaceInStmt(const Stmt& s, const te::Expr& from, const te::Expr& to) {
  return MapAllExprs(s, [&](const te::Expr& e) { return ReplaceExpr(e, from, to); });
}

std::optional<IntInterval> Intersect(IntInterval a, IntInterval b) {
  IntInterval r{std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
  if (r.lo > r.hi) return std::nullopt;
  return r;
}

class BoundaryPartitioner {
 public:
  Stmt Run(const Stmt& s) {
    if (!s) return s;
    return std::visit(
        Overloaded{
            [&](const For& n) -> Stmt { return RunFor(s, n); },
            [&](const LetStmt& n) -> Stmt {
              std::optional<IntInterval> b = te::arith::ConstBounds(n.value, bounds_);
              if (b) bounds_[n.var.get()] = *b;
              Stmt body = Run(n.body);
              bounds_.erase(n.var.get());
              return body.same_as(n.body) ? s : MakeLet(n.var, n.value, body);
            },
            [&](const auto&) -> Stmt { return MapStmtChildren(s, [&](const Stmt& c) { return Run(c); }); },
        },
        s.get()->v);
  }

 private:
  Stmt RunFor(const Stmt& s, const For& n) {
    if (n.kind == ForKind::kSerial) {
      std::vector<int64_t> cuts = CutPoints(n);
      if (!cuts.empty()) return Partition(n, cuts);
    }
    bounds_[n.var.get()] = {0, n.extent - 1};
    Stmt body = Run(n.body);
    bounds_.erase(n.var.get());
    Stmt loop = body.same_as(n.body) ? s : MakeFor(n.var, n.extent, n.kind, body);
    if (n.kind != ForKind::kSerial || HasLoop(body)) return loop;
    return Unswitch(loop, 0);
  }

  // Where tests of the loop's own variable against constants change value.
  std::vector<int64_t> CutPoints(const For& n) {
    std::set<int64_t> cuts;
    for (const te::Expr& c : Comparisons(n.body)) {
      std::optional<LinearTest> t = AsLinearTest(c);
      if (!t || !IsVarRef(t->atom, n.var.get())) continue;
      int64_t cut = t->coef > 0 ? t->Holds().lo : t->Holds().hi + 1;
      if (cut > 0 && cut < n.extent) cuts.insert(cut);
    }
    if (cuts.size() + 1 > kMaxPieces) return {};
    if (static_cast<int64_t>(cuts.size() + 1) * CountStmts(n.body) > kMaxCopiedStmts) return {};
    return {cuts.begin(), cuts.end()};
  }

  Stmt Partition(const For& n, const std::vector<int64_t>& cuts) {
    std::vector<Stmt> pieces;
    int64_t begin = 0;
    for (size_t i = 0; i <= cuts.size(); ++i) {
      int64_t end = i < cuts.size() ? cuts[i] : n.extent;
      Stmt piece;
      if (end - begin == 1) {
        piece = SubstituteStmt(n.body, {{n.var.get(), te::Expr(begin)}});
      } else {
        te::Var v = te::MakeVar(n.var->name, n.var->dtype);
        piece = MakeFor(v, end - begin, n.kind,
                        SubstituteStmt(n.body, {{n.var.get(), te::Expr(v) + te::Expr(begin)}}));
      }
      // Decide the tests where the piece stands, then go on inside it.
      pieces.push_back(Run(SimplifyStmt(piece, bounds_)));
      begin = end;
    }
    return MakeSeq(std::move(pieces));
  }

  // The first test in the innermost loop that does not change inside it.
  te::Expr InvariantTest(const Stmt& loop) {
    std::set<const te::VarNode*> inside = BoundInside(loop);
    for (const te::Expr& c : Comparisons(loop))
      if (!UsesAny(c, inside) && IsPure(c)) return c;
    return te::Expr();
  }

  Stmt Unswitch(const Stmt& loop, int depth) {
    if (depth >= kMaxUnswitchDepth) return loop;
    if (CountStmts(loop) << (depth + 1) > kMaxCopiedStmts) return loop;
    te::Expr test = InvariantTest(loop);
    if (!test) return loop;
    te::Expr t_true = te::IntConst(1, test.dtype()), t_false = te::IntConst(0, test.dtype());
    std::optional<LinearTest> linear = AsLinearTest(test);
    // A test over one expression narrows its range in each branch: name it
    // by a variable, so the simplifier knows the range everywhere it is used.
    te::Var named;
    Stmt body = loop;
    const te::VarNode* ranged = nullptr;
    std::optional<IntInterval> range;
    if (linear) {
      if (const auto* v = linear->atom.as<te::VarRef>(); v && bounds_.count(v->var.get())) {
        ranged = v->var.get();
        range = bounds_[ranged];
      } else if (!linear->atom.as<te::VarRef>() && IsPure(linear->atom)) {
        range = te::arith::ConstBounds(linear->atom, bounds_);
        if (range) {
          named = te::MakeVar(absl::StrCat("edge", named_count_++), te::DType::Index());
          ranged = named.get();
          body = ReplaceInStmt(body, linear->atom, te::Expr(named));
          test = ReplaceExpr(test, linear->atom, te::Expr(named));
        }
      }
    }
    auto branch = [&](bool holds) -> Stmt {
      std::optional<IntInterval> saved = ranged && bounds_.count(ranged)
                                             ? std::optional<IntInterval>(bounds_[ranged])
                                             : std::nullopt;
      if (ranged && range) {
        std::optional<IntInterval> r = Intersect(*range, holds ? linear->Holds() : linear->Fails());
        if (!r) return Stmt();  // never taken
        bounds_[ranged] = *r;
      }
      Stmt s = SimplifyStmt(ReplaceInStmt(body, test, holds ? t_true : t_false), bounds_);
      if (s && s.as<For>()) s = Unswitch(s, depth + 1);
      if (ranged) {
        if (saved) bounds_[ranged] = *saved;
        else bounds_.erase(ranged);
      }
      return s;
    };
    Stmt then_case = branch(true), else_case = branch(false);
    if (!then_case && !else_case) return Stmt();
    Stmt out = then_case ? MakeIf(test, then_case, else_case) : MakeIf(te::LogicalNot(test), else_case);
    return named ? MakeLet(named, linear->atom, out) : out;
  }

  VarBounds bounds_;
  int named_count_ = 0;  // tells the named tests apart in printed code
};

}  // namespace

Stmt PartitionBoundaries(const Stmt& body) { return BoundaryPartitioner().Run(body); }

}  // namespace tuneforge::lower
