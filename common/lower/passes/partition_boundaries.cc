#include "common/lower/passes/partition_boundaries.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/lower/passes/drop_padded_taps.h"
#include "common/lower/passes/simplify_stmt.h"
#include "common/lower/passes/unroll_tile_loops.h"
#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"
#include "common/te/arith/sum_form.h"
#include "common/te/expr_util.h"

namespace tuneforge::lower {
namespace {

using te::arith::IntInterval;
using te::arith::VarBounds;

// LLVM's time grows faster than the code (a 300-statement unrolled body
// copied 6 times took 9 s instead of 0.4). Fast kernels are small register
// tiles, whose copies are cheap; a loop larger than this is not copied, and
// all rewrites of one function add at most kMaxAddedStmts statements.
constexpr int64_t kMaxCopiedStmts = 128;
constexpr int64_t kMaxAddedStmts = 512;
// A loop is cut into at most this many pieces.
constexpr size_t kMaxPieces = 5;
// Tests hoisted above one innermost loop, one inside the other: the four
// borders of a window (up to 2^4 copies before the ranges prune the
// impossible ones: 9 for a 2-D border).
constexpr int kMaxUnswitchDepth = 4;

// A parallel loop is versioned (VersionSteadyState) only where its border
// iterations, which run the body with its tests, are at most 1 in this many.
constexpr int64_t kMaxBorderShare = 8;

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

// A comparison of index values as `sum >= 0` (from <, <=, > or >=).
std::optional<te::arith::SumForm> AsTestForm(const te::Expr& e) {
  if (!IsIndexComparison(e)) return std::nullopt;
  const auto& b = *e.as<te::Binary>();
  // a >= b and a > b are a - b >= 0 and a - b - 1 >= 0; <= and < the same
  // with the operands swapped.
  bool greater = b.op == te::BinOp::kGE || b.op == te::BinOp::kGT;
  if (!greater && b.op != te::BinOp::kLE && b.op != te::BinOp::kLT) return std::nullopt;
  te::arith::SumForm f = te::arith::ToSumForm(greater ? b.a : b.b);
  f.Add(te::arith::ToSumForm(greater ? b.b : b.a), -1);
  if (b.op == te::BinOp::kGT || b.op == te::BinOp::kLT) f.constant -= 1;
  if (!f.dropped.empty()) return std::nullopt;
  return f;
}

std::optional<LinearTest> AsLinearTest(const te::Expr& e) {
  std::optional<te::arith::SumForm> f = AsTestForm(e);
  if (!f || f->terms.size() != 1) return std::nullopt;
  return LinearTest{f->terms[0].atom, f->terms[0].coef, f->constant};
}

// A test as `Y >= threshold` over a sum Y of index terms whose coefficients
// share no factor: `g * Y + constant >= 0` holds where Y >= ceil(-constant /
// g). A register tile's column tests `16a + 8b >= 3`, `16a + 8b + 2 >= 3`
// and `16a + 8b + 1 >= 3` are all `2a + b >= 1`.
struct ScaledTest {
  te::arith::SumForm terms;  // Y (constant 0)
  int64_t threshold = 0;
};

std::optional<ScaledTest> AsScaledTest(const te::Expr& e) {
  std::optional<te::arith::SumForm> f = AsTestForm(e);
  if (!f || f->terms.empty()) return std::nullopt;
  int64_t g = 0;
  for (const te::arith::SumTerm& t : f->terms) g = std::gcd(g, t.coef < 0 ? -t.coef : t.coef);
  ScaledTest out;
  for (const te::arith::SumTerm& t : f->terms) out.terms.terms.push_back({t.atom, t.coef / g});
  out.threshold = -te::arith::FloorDivInt(f->constant, g);
  return out;
}

// A test `coef * v + constant + inner >= 0` over a loop's variable v, with
// `inner` the sum of the terms over loops inside the loop, which ranges over
// [lowest, highest]: `constant + lowest` and `constant + highest` below.
struct TestOverLoop {
  int64_t coef = 0;
  int64_t lowest = 0;
  int64_t highest = 0;
};

// The test as one over `var` and the loops in `inner` (their extents), or
// none if it reads anything else or not `var`.
std::optional<TestOverLoop> OverLoop(const te::arith::SumForm& f, const te::VarNode* var,
                                     const absl::flat_hash_map<const te::VarNode*, int64_t>& inner) {
  TestOverLoop out{0, f.constant, f.constant};
  for (const te::arith::SumTerm& t : f.terms) {
    const auto* v = t.atom.as<te::VarRef>();
    if (v && v->var.get() == var) {
      out.coef = t.coef;
    } else if (auto it = v ? inner.find(v->var.get()) : inner.end(); it != inner.end()) {
      (t.coef > 0 ? out.highest : out.lowest) += t.coef * (it->second - 1);
    } else {
      return std::nullopt;
    }
  }
  if (out.coef == 0) return std::nullopt;
  return out;
}

// The first value of v from which `coef * v + constant >= 0` changes
// (holds from it for coef > 0, fails from it for coef < 0).
int64_t Cut(int64_t coef, int64_t constant) {
  LinearTest test{te::Expr(), coef, constant};
  return coef > 0 ? test.Holds().lo : test.Holds().hi + 1;
}

// The loops inside s and their extents.
absl::flat_hash_map<const te::VarNode*, int64_t> InnerLoopExtents(const Stmt& s) {
  absl::flat_hash_map<const te::VarNode*, int64_t> out;
  VisitStmts(s, [&](const Stmt& x) {
    if (const auto* f = x.as<For>()) out[f->var.get()] = f->extent;
  });
  return out;
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

// What s costs to compile: the statements DropPaddedTaps leaves, and the
// tests left in them (a select on a border test in every statement makes a
// masked load of each).
int64_t CodeSize(const Stmt& s) {
  Stmt kept = DropPaddedTaps(s);
  return CountStmts(kept) + static_cast<int64_t>(Comparisons(kept).size());
}

bool HasLoop(const Stmt& s) {
  bool found = false;
  VisitStmts(s, [&](const Stmt& x) { found = found || x.as<For>() != nullptr; });
  return found;
}

// The innermost loops of s (those with no loop inside).
std::vector<const For*> LeafLoops(const Stmt& s) {
  std::vector<const For*> out;
  VisitStmts(s, [&](const Stmt& x) {
    if (const auto* f = x.as<For>(); f && !HasLoop(f->body)) out.push_back(f);
  });
  return out;
}

std::set<const te::VarNode*> LeafLoopVars(const Stmt& s) {
  std::set<const te::VarNode*> out;
  for (const For* f : LeafLoops(s)) out.insert(f->var.get());
  return out;
}

// Whether s has tests and each lies in an innermost loop that accumulates.
bool TestsInReductionLeaves(const Stmt& s) {
  size_t in_leaves = 0;
  for (const For* f : LeafLoops(s)) {
    const size_t tests = Comparisons(f->body).size();
    if (tests > 0 && !(f->kind == ForKind::kSerial && AccumulatesOver(*f))) return false;
    in_leaves += tests;
  }
  return in_leaves > 0 && in_leaves == Comparisons(s).size();
}

// Whether a test is left in an innermost loop: asked on every iteration.
bool TestsLeftInLeaves(const Stmt& s) {
  for (const For* f : LeafLoops(s))
    if (!Comparisons(f->body).empty()) return true;
  return false;
}

bool UsesAny(const te::Expr& e, const std::set<const te::VarNode*>& vars) {
  bool uses = false;
  te::PostOrderVisit(e, [&](const te::Expr& x) {
    if (const auto* v = x.as<te::VarRef>(); v && vars.count(v->var.get())) uses = true;
  });
  return uses;
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
    if (n.kind == ForKind::kParallel) return RunParallel(s, n);
    if (n.kind != ForKind::kSerial) return RunInside(s, n);
    std::vector<int64_t> cuts = CutPoints(n, /*unswitch_below=*/false);
    if (cuts.empty()) return RunInside(s, n);
    // Where every test sits in an innermost loop that accumulates (a
    // reduction's loop, its tile unrolled: unroll_tile_loops.h), the tests
    // over none of those loops' variables are asked once above that loop
    // instead (Unswitch): each distinct set of taps is one copy of the loop,
    // where cutting this loop copied the whole tile into every piece. Kept
    // only where it decides every test (Unswitch stops at its budgets).
    if (TestsInReductionLeaves(n.body)) {
      const int64_t budget = budget_;
      std::vector<int64_t> outer = CutPoints(n, /*unswitch_below=*/true);
      Stmt below = outer.empty() ? RunInside(s, n) : Partition(n, outer);
      if (!TestsLeftInLeaves(below)) return below;
      budget_ = budget;
    }
    return Partition(n, cuts);
  }

  // A parallel loop versioned (VersionSteadyState) or rewritten inside as
  // any other, whichever leaves less code (CodeSize): versioning adds a
  // copy of the body, which pays only where the unswitched copies it saves
  // are more (a stem candidate's 682 lines became 280; where the copies
  // inside were few, 313 became 395 and its compile 82 -> 139 ms).
  Stmt RunParallel(const Stmt& s, const For& n) {
    const int64_t budget = budget_;
    Stmt versioned = VersionSteadyState(n);
    if (!versioned) return RunInside(s, n);
    const int64_t budget_after_versioning = budget_;
    budget_ = budget;
    Stmt plain = RunInside(s, n);
    if (CodeSize(plain) <= CodeSize(versioned)) return plain;
    budget_ = budget_after_versioning;
    return versioned;
  }

  // A parallel loop cannot be cut, so the tests over its variable were each
  // unswitched above every innermost loop, in every piece of the loops cut
  // inside: a 7x7 stem's four row cases times its column pieces, 16 copies
  // of the tile for 3 border rows in 112. Where the border is that rare,
  // the loop asks once whether an iteration is a border one: the steady
  // iterations run the body with those tests decided (and the rest
  // partitioned as usual), the border ones the body as it was, tests and
  // all: one copy of the tile instead of a dozen, on a few rows.
  Stmt VersionSteadyState(const For& n) {
    std::optional<IntInterval> steady = SteadyRange(n);
    if (!steady) return Stmt();
    const int64_t size = CountStmts(n.body);
    if (size > kMaxCopiedStmts || size > budget_) return Stmt();
    budget_ -= size;
    te::Expr v(n.var);
    te::Expr in_steady;
    if (steady->lo > 0) in_steady = v >= te::Expr(steady->lo);
    if (steady->hi < n.extent - 1)
      in_steady = in_steady ? te::LogicalAnd(in_steady, v <= te::Expr(steady->hi)) : (v <= te::Expr(steady->hi));
    bounds_[n.var.get()] = *steady;
    Stmt steady_body = Run(SimplifyStmt(n.body, bounds_));
    bounds_.erase(n.var.get());
    return MakeFor(n.var, n.extent, n.kind, MakeIf(in_steady, steady_body, n.body));
  }

  // The longest run of the loop's values over which every test of its
  // variable is decided whatever the loops inside it take, if the others
  // are few (at most kMaxBorderShare of the loop) and every such test is
  // linear in the variable and those loops (else nothing is versioned).
  std::optional<IntInterval> SteadyRange(const For& n) {
    absl::flat_hash_map<const te::VarNode*, int64_t> inner = InnerLoopExtents(n.body);
    // Values of the variable where some test is undecided, as [lo, hi).
    std::vector<std::pair<int64_t, int64_t>> undecided;
    for (const te::Expr& c : Comparisons(n.body)) {
      if (!UsesAny(c, {n.var.get()})) continue;
      std::optional<te::arith::SumForm> f = AsTestForm(c);
      std::optional<TestOverLoop> t = f ? OverLoop(*f, n.var.get(), inner) : std::nullopt;
      if (!t) return std::nullopt;
      // Decided where it holds or fails for the lowest and the highest
      // inner sum alike: between the two cuts it is not.
      int64_t a = Cut(t->coef, t->lowest), b = Cut(t->coef, t->highest);
      undecided.push_back({std::min(a, b), std::max(a, b)});
    }
    if (undecided.empty()) return std::nullopt;
    std::sort(undecided.begin(), undecided.end());
    IntInterval best{0, -1};
    int64_t from = 0;  // first value not known undecided
    auto consider = [&](int64_t to) {  // [from, to) is decided
      to = std::min(to, n.extent);
      if (to - from > best.hi - best.lo + 1) best = {from, to - 1};
    };
    for (auto [lo, hi] : undecided) {
      if (lo > from) consider(lo);
      from = std::max(from, hi);
    }
    consider(n.extent);
    const int64_t steady = best.hi - best.lo + 1;
    if (steady <= 0 || steady == n.extent || (n.extent - steady) * kMaxBorderShare > n.extent) return std::nullopt;
    return best;
  }

  // The loop with its body rewritten, and unswitched if innermost.
  Stmt RunInside(const Stmt& s, const For& n) {
    bounds_[n.var.get()] = {0, n.extent - 1};
    Stmt body = Run(n.body);
    bounds_.erase(n.var.get());
    Stmt loop = body.same_as(n.body) ? s : MakeFor(n.var, n.extent, n.kind, body);
    if (n.kind != ForKind::kSerial || HasLoop(body)) return loop;
    return Unswitch(loop, 0);
  }

  // Where tests of the loop's variable change value. A test may also use
  // loops inside this one (`ow + rx - 1 >= 0`): it is decided where it holds
  // or fails for every value of theirs, so the cuts are where that starts.
  // With `unswitch_below`, only the tests that use an innermost loop's
  // variable: the others are left to Unswitch.
  std::vector<int64_t> CutPoints(const For& n, bool unswitch_below) {
    absl::flat_hash_map<const te::VarNode*, int64_t> inner = InnerLoopExtents(n.body);
    std::set<const te::VarNode*> leaves;
    if (unswitch_below) leaves = LeafLoopVars(n.body);
    std::set<int64_t> cuts;
    for (const te::Expr& c : Comparisons(n.body)) {
      if (unswitch_below && !UsesAny(c, leaves)) continue;
      std::optional<te::arith::SumForm> f = AsTestForm(c);
      std::optional<TestOverLoop> t = f ? OverLoop(*f, n.var.get(), inner) : std::nullopt;
      if (!t) continue;
      // Holds for every inner value from the one cut, fails for every one
      // from the other (or the reverse, for a negative coefficient).
      for (int64_t constant : {t->lowest, t->highest}) {
        int64_t cut = Cut(t->coef, constant);
        if (cut > 0 && cut < n.extent) cuts.insert(cut);
      }
    }
    if (cuts.size() + 1 > kMaxPieces) return {};
    int64_t size = CountStmts(n.body);
    if (size > kMaxCopiedStmts || static_cast<int64_t>(cuts.size()) * size > budget_) return {};
    return {cuts.begin(), cuts.end()};
  }

  Stmt Partition(const For& n, const std::vector<int64_t>& cuts) {
    budget_ -= static_cast<int64_t>(cuts.size()) * CountStmts(n.body);
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
    te::Expr test = InvariantTest(loop);
    if (!test) return loop;
    int64_t copy = CountStmts(loop);
    if (copy > kMaxCopiedStmts || copy > budget_) return loop;
    budget_ -= copy;
    return Branch(test, loop, [&](const Stmt& body, const te::Expr& t, bool holds) {
      Stmt s = SimplifyStmt(ReplaceInStmt(body, t, te::IntConst(holds ? 1 : 0, t.dtype())), bounds_);
      return s && s.as<For>() ? Unswitch(s, depth + 1) : s;
    });
  }

  // `if (test) side(body, true) else side(body, false)`, each side built
  // with the ranges its outcome implies. A test over one variable narrows
  // the variable's range; one over one expression (`2 * floormod(f, 7) >=
  // 1`) names the expression by a variable first, so the simplifier knows
  // its range wherever it is used and decides the tests it implies. `side`
  // gets the body and the test as they are after naming.
  using Side = std::function<Stmt(const Stmt& body, const te::Expr& test, bool holds)>;
  Stmt Branch(te::Expr test, Stmt body, const Side& side) {
    std::optional<LinearTest> linear = AsLinearTest(test);
    // A test over several terms narrows the range of their sum instead
    // (SumFact), which decides the other tests over that sum.
    std::optional<ScaledTest> scaled = linear ? std::nullopt : AsScaledTest(test);
    te::Var named;
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
    auto build = [&](bool holds) -> Stmt {
      std::optional<IntInterval> saved;
      if (ranged && bounds_.count(ranged)) saved = bounds_[ranged];
      if (ranged && range) {
        std::optional<IntInterval> r = Intersect(*range, holds ? linear->Holds() : linear->Fails());
        if (!r) return Stmt();  // never taken
        bounds_[ranged] = *r;
      }
      if (scaled) {
        IntInterval known = SumRange(scaled->terms);
        std::optional<IntInterval> r =
            holds ? Intersect(known, {scaled->threshold, kUnbounded})
                  : Intersect(known, {-kUnbounded, scaled->threshold - 1});
        if (!r) return Stmt();  // never taken
        facts_.push_back({scaled->terms, *r});
      }
      Stmt s = side(scaled ? DecideByFacts(body) : body, test, holds);
      if (scaled) facts_.pop_back();
      if (saved) bounds_[ranged] = *saved;
      else if (ranged) bounds_.erase(ranged);
      return s;
    };
    Stmt then_case = build(true), else_case = build(false);
    if (!then_case && !else_case) return Stmt();
    Stmt out = then_case ? MakeIf(test, then_case, else_case) : MakeIf(te::LogicalNot(test), else_case);
    return named ? MakeLet(named, linear->atom, out) : out;
  }

  // The values a sum of index terms takes where the enclosing branches
  // stand: the latest fact over it (or its negation), else its bounds.
  IntInterval SumRange(const te::arith::SumForm& terms) {
    te::arith::SumForm negated = terms;
    negated.Scale(-1);
    for (auto it = facts_.rbegin(); it != facts_.rend(); ++it) {
      if (it->terms.SameTerms(terms)) return it->range;
      if (it->terms.SameTerms(negated)) return {-it->range.hi, -it->range.lo};
    }
    std::optional<IntInterval> b = te::arith::ConstBounds(te::arith::FromSumForm(terms), bounds_);
    return b ? *b : IntInterval{-kUnbounded, kUnbounded};
  }

  // s with each test the facts decide replaced by its outcome.
  Stmt DecideByFacts(const Stmt& s) {
    std::function<te::Expr(const te::Expr&)> decide = [&](const te::Expr& e) -> te::Expr {
      if (IsIndexComparison(e)) {
        if (std::optional<ScaledTest> t = AsScaledTest(e)) {
          IntInterval r = SumRange(t->terms);
          if (r.lo >= t->threshold) return te::IntConst(1, e.dtype());
          if (r.hi < t->threshold) return te::IntConst(0, e.dtype());
        }
      }
      return te::MapChildren(e, decide);
    };
    return MapAllExprs(s, decide);
  }

  // What the branches taken say about a sum of terms (Branch, ScaledTest).
  struct SumFact {
    te::arith::SumForm terms;
    IntInterval range;
  };

  VarBounds bounds_;
  std::vector<SumFact> facts_;  // innermost branch last
  int64_t budget_ = kMaxAddedStmts;  // statements the rewrites may still add
  int named_count_ = 0;  // tells the named tests apart in printed code
};

}  // namespace

Stmt PartitionBoundaries(const Stmt& body) { return BoundaryPartitioner().Run(body); }

}  // namespace tuneforge::lower
