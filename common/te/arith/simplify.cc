#include "common/te/arith/simplify.h"

#include <cmath>

#include "common/overloaded.h"
#include "common/te/arith/sum_form.h"
#include "common/te/expr_util.h"

namespace tuneforge::te::arith {
namespace {

bool IsIndexType(DType t) { return t.is_int() && t.lanes == 1; }

const double* AsFloatConst(const Expr& e) {
  const auto* f = e.as<FloatImm>();
  return f ? &f->value : nullptr;
}

bool IsConstValue(const Expr& e, double v) {
  if (const int64_t* i = AsIntConst(e)) return static_cast<double>(*i) == v;
  if (const double* f = AsFloatConst(e)) return *f == v;
  return false;
}

// Rounds a folded float to the precision of its type.
Expr FloatResult(double v, DType t) {
  if (t.scalar == ScalarType::kFloat32) v = static_cast<double>(static_cast<float>(v));
  return FloatConst(v, t);
}

class Simplifier {
 public:
  explicit Simplifier(const VarBounds& bounds) : bounds_(bounds) {}

  Expr Run(const Expr& e) {
    if (IsIndexType(e.dtype()) && IsSumNode(e)) return SimplifySum(e);
    Expr x = MapChildren(e, [&](const Expr& c) { return Run(c); });
    return Rewrite(x);
  }

 private:
  static bool IsSumNode(const Expr& e) {
    const auto* b = e.as<Binary>();
    return b && (b->op == BinOp::kAdd || b->op == BinOp::kSub || b->op == BinOp::kMul);
  }

  // Flattens a tree of +, -, *const into one sum, simplifying atoms and
  // merging atoms that simplify to sums themselves.
  void CollectSum(const Expr& e, int64_t scale, SumForm* out) {
    if (const int64_t* c = AsIntConst(e)) {
      out->constant += scale * *c;
      return;
    }
    if (const auto* b = e.as<Binary>()) {
      if (b->op == BinOp::kAdd || b->op == BinOp::kSub) {
        CollectSum(b->a, scale, out);
        CollectSum(b->b, b->op == BinOp::kAdd ? scale : -scale, out);
        return;
      }
      if (b->op == BinOp::kMul) {
        Expr a = Run(b->a), c = Run(b->b);
        if (const int64_t* k = AsIntConst(c)) return Merge(a, scale * *k, out);
        if (const int64_t* k = AsIntConst(a)) return Merge(c, scale * *k, out);
        out->AddTerm(MakeBinary(BinOp::kMul, a, c), scale);
        return;
      }
    }
    Merge(Run(e), scale, out);
  }

  void Merge(const Expr& simplified, int64_t scale, SumForm* out) {
    if (IsSumNode(simplified) || AsIntConst(simplified)) {
      out->Add(ToSumForm(simplified), scale);
    } else {
      out->AddTerm(simplified, scale);
    }
  }

  Expr SimplifySum(const Expr& e) {
    SumForm f;
    CollectSum(e, 1, &f);
    MergeDivModPairs(&f);
    return FromSumForm(f, e.dtype());
  }

  // k*c*floordiv(x, c) + k*floormod(x, c) == k*x: what splitting a fused
  // index back into its parts and recombining it leaves behind.
  static void MergeDivModPairs(SumForm* f) {
    for (bool merged = true; merged;) {
      merged = false;
      for (size_t m = 0; m < f->terms.size() && !merged; ++m) {
        const auto* mod = f->terms[m].atom.as<Binary>();
        if (!mod || mod->op != BinOp::kFloorMod) continue;
        const int64_t* c = AsIntConst(mod->b);
        if (!c) continue;
        int64_t k = f->terms[m].coef;
        for (size_t d = 0; d < f->terms.size(); ++d) {
          const auto* div = f->terms[d].atom.as<Binary>();
          if (!div || div->op != BinOp::kFloorDiv || f->terms[d].coef != k * *c) continue;
          const int64_t* c2 = AsIntConst(div->b);
          if (!c2 || *c2 != *c || !StructurallyEqual(div->a, mod->a)) continue;
          Expr x = mod->a;
          f->terms.erase(f->terms.begin() + static_cast<long>(std::max(m, d)));
          f->terms.erase(f->terms.begin() + static_cast<long>(std::min(m, d)));
          f->Add(ToSumForm(x), k);
          merged = true;
          break;
        }
      }
    }
  }

  std::optional<IntInterval> Bounds(const Expr& e) { return ConstBounds(e, bounds_); }

  // floordiv / floormod of a sum by a positive constant c: terms whose
  // coefficient c divides come out of the division; the rest stays.
  Expr DivMod(BinOp op, const Expr& a, int64_t c, DType t) {
    if (c == 1) return op == BinOp::kFloorDiv ? a : IntConst(0, t);
    SumForm f = ToSumForm(a);
    SumForm quotient, rest;
    for (const SumTerm& term : f.terms) {
      if (term.coef % c == 0) {
        quotient.AddTerm(term.atom, term.coef / c);
      } else {
        rest.AddTerm(term.atom, term.coef);
      }
    }
    quotient.constant = FloorDivInt(f.constant, c);
    rest.constant = FloorModInt(f.constant, c);
    Expr rest_expr = FromSumForm(rest, t);
    std::optional<IntInterval> rb = Bounds(rest_expr);
    bool rest_in_one_period = rb && FloorDivInt(rb->lo, c) == FloorDivInt(rb->hi, c);
    if (op == BinOp::kFloorDiv) {
      if (rest_in_one_period) {
        quotient.constant += FloorDivInt(rb->lo, c);
        return FromSumForm(quotient, t);
      }
      if (quotient.is_constant() && quotient.constant == 0)
        return MakeBinary(BinOp::kFloorDiv, rest_expr, IntConst(c, t));
      SumForm out = quotient;
      out.AddTerm(MakeBinary(BinOp::kFloorDiv, rest_expr, IntConst(c, t)), 1);
      return FromSumForm(out, t);
    }
    if (rest_in_one_period) {
      SumForm out = rest;
      out.constant -= FloorDivInt(rb->lo, c) * c;
      return FromSumForm(out, t);
    }
    // Nested modulo by a multiple: (x % 64) % 16 == x % 16.
    if (const auto* inner = rest_expr.as<Binary>(); inner && inner->op == BinOp::kFloorMod)
      if (const int64_t* k = AsIntConst(inner->b); k && *k % c == 0) rest_expr = inner->a;
    return MakeBinary(BinOp::kFloorMod, rest_expr, IntConst(c, t));
  }

  Expr FoldInt(BinOp op, int64_t a, int64_t b, DType t) {
    switch (op) {
      case BinOp::kAdd: return IntConst(a + b, t);
      case BinOp::kSub: return IntConst(a - b, t);
      case BinOp::kMul: return IntConst(a * b, t);
      case BinOp::kDiv: return b ? IntConst(a / b, t) : Expr();
      case BinOp::kMod: return b ? IntConst(a % b, t) : Expr();
      case BinOp::kFloorDiv: return b ? IntConst(FloorDivInt(a, b), t) : Expr();
      case BinOp::kFloorMod: return b ? IntConst(FloorModInt(a, b), t) : Expr();
      case BinOp::kMin: return IntConst(std::min(a, b), t);
      case BinOp::kMax: return IntConst(std::max(a, b), t);
      case BinOp::kEQ: return IntConst(a == b, t);
      case BinOp::kNE: return IntConst(a != b, t);
      case BinOp::kLT: return IntConst(a < b, t);
      case BinOp::kLE: return IntConst(a <= b, t);
      case BinOp::kGT: return IntConst(a > b, t);
      case BinOp::kGE: return IntConst(a >= b, t);
      case BinOp::kAnd: return IntConst(a && b, t);
      case BinOp::kOr: return IntConst(a || b, t);
    }
    return Expr();
  }

  Expr FoldFloat(BinOp op, double a, double b, DType t) {
    switch (op) {
      case BinOp::kAdd: return FloatResult(a + b, t);
      case BinOp::kSub: return FloatResult(a - b, t);
      case BinOp::kMul: return FloatResult(a * b, t);
      case BinOp::kDiv: return FloatResult(a / b, t);
      case BinOp::kMin: return FloatResult(std::min(a, b), t);
      case BinOp::kMax: return FloatResult(std::max(a, b), t);
      case BinOp::kEQ: return IntConst(a == b, t);
      case BinOp::kNE: return IntConst(a != b, t);
      case BinOp::kLT: return IntConst(a < b, t);
      case BinOp::kLE: return IntConst(a <= b, t);
      case BinOp::kGT: return IntConst(a > b, t);
      case BinOp::kGE: return IntConst(a >= b, t);
      default: return Expr();
    }
  }

  // Vector index algebra on ramps and broadcasts.
  Expr RewriteVector(const Binary& n, const Expr& e) {
    const auto* ra = n.a.as<Ramp>();
    const auto* rb = n.b.as<Ramp>();
    const auto* ba = n.a.as<Broadcast>();
    const auto* bb = n.b.as<Broadcast>();
    if (ba && bb && !IsComparison(n.op) && !IsLogical(n.op))
      return MakeBroadcast(Run(MakeBinary(n.op, ba->value, bb->value)), ba->lanes);
    if (n.op == BinOp::kAdd || n.op == BinOp::kSub) {
      int64_t sign = n.op == BinOp::kAdd ? 1 : -1;
      if (ra && rb)
        return MakeRamp(Run(MakeBinary(n.op, ra->base, rb->base)), ra->stride + sign * rb->stride,
                        ra->lanes);
      if (ra && bb) return MakeRamp(Run(MakeBinary(n.op, ra->base, bb->value)), ra->stride, ra->lanes);
      if (ba && rb && n.op == BinOp::kAdd)
        return MakeRamp(Run(MakeBinary(BinOp::kAdd, ba->value, rb->base)), rb->stride, rb->lanes);
    }
    if (n.op == BinOp::kMul) {
      if (ra && bb)
        if (const int64_t* c = AsIntConst(bb->value))
          return MakeRamp(Run(MakeBinary(BinOp::kMul, ra->base, bb->value)), ra->stride * *c,
                          ra->lanes);
      if (ba && rb)
        if (const int64_t* c = AsIntConst(ba->value))
          return MakeRamp(Run(MakeBinary(BinOp::kMul, rb->base, ba->value)), rb->stride * *c,
                          rb->lanes);
    }
    return e;
  }

  Expr RewriteBinary(const Binary& n, const Expr& e) {
    DType t = e.dtype();
    if (t.is_vector()) return RewriteVector(n, e);
    const int64_t* ia = AsIntConst(n.a);
    const int64_t* ib = AsIntConst(n.b);
    const double* fa = AsFloatConst(n.a);
    const double* fb = AsFloatConst(n.b);
    if (ia && ib) {
      Expr folded = FoldInt(n.op, *ia, *ib, t);
      if (folded) return folded;
    }
    if (fa && fb) {
      Expr folded = FoldFloat(n.op, *fa, *fb, t);
      if (folded) return folded;
    }
    if (IsLogical(n.op)) {
      bool is_and = n.op == BinOp::kAnd;
      for (const auto& [x, y] : {std::pair{n.a, n.b}, std::pair{n.b, n.a}}) {
        if (const int64_t* c = AsIntConst(x)) {
          if (is_and) return *c ? y : IntConst(0, t);
          return *c ? IntConst(1, t) : y;
        }
      }
      return e;
    }
    if (IsComparison(n.op) || n.op == BinOp::kMin || n.op == BinOp::kMax) {
      if (IsIndexType(n.a.dtype())) {
        if (IsComparison(n.op)) {
          std::optional<IntInterval> b = Bounds(e);
          if (b && b->is_point()) return IntConst(b->lo, t);
          return e;
        }
        std::optional<IntInterval> a = Bounds(n.a), b = Bounds(n.b);
        if (a && b) {
          bool a_le_b = a->hi <= b->lo, b_le_a = b->hi <= a->lo;
          if (n.op == BinOp::kMin && a_le_b) return n.a;
          if (n.op == BinOp::kMin && b_le_a) return n.b;
          if (n.op == BinOp::kMax && a_le_b) return n.b;
          if (n.op == BinOp::kMax && b_le_a) return n.a;
        }
      }
      return e;
    }
    if (IsIndexType(t)) {
      if ((n.op == BinOp::kFloorDiv || n.op == BinOp::kFloorMod) && ib && *ib > 0)
        return DivMod(n.op, n.a, *ib, t);
      // Truncating division equals floor division on non-negative operands.
      if ((n.op == BinOp::kDiv || n.op == BinOp::kMod) && ib && *ib > 0) {
        std::optional<IntInterval> a = Bounds(n.a);
        if (a && a->lo >= 0)
          return DivMod(n.op == BinOp::kDiv ? BinOp::kFloorDiv : BinOp::kFloorMod, n.a, *ib, t);
      }
      return e;
    }
    if (t.is_float()) {
      if (n.op == BinOp::kMul && IsConstValue(n.b, 1)) return n.a;
      if (n.op == BinOp::kMul && IsConstValue(n.a, 1)) return n.b;
      if (n.op == BinOp::kAdd && IsConstValue(n.b, 0)) return n.a;
      if (n.op == BinOp::kAdd && IsConstValue(n.a, 0)) return n.b;
      if (n.op == BinOp::kSub && IsConstValue(n.b, 0)) return n.a;
      if (n.op == BinOp::kDiv && IsConstValue(n.b, 1)) return n.a;
    }
    return e;
  }

  Expr Rewrite(const Expr& e) {
    return std::visit(
        Overloaded{
            [&](const Binary& n) { return RewriteBinary(n, e); },
            [&](const Not& n) -> Expr {
              if (const int64_t* c = AsIntConst(n.a)) return IntConst(!*c, e.dtype());
              if (const auto* inner = n.a.as<Not>()) return inner->a;
              return e;
            },
            [&](const Select& n) -> Expr {
              if (const int64_t* c = AsIntConst(n.cond)) return *c ? n.true_value : n.false_value;
              if (!n.cond.dtype().is_vector()) {
                std::optional<IntInterval> b = Bounds(n.cond);
                if (b && b->is_point()) return b->lo ? n.true_value : n.false_value;
              }
              if (StructurallyEqual(n.true_value, n.false_value)) return n.true_value;
              return e;
            },
            [&](const Cast& n) -> Expr {
              DType t = e.dtype();
              if (t.is_vector()) return e;
              if (const int64_t* c = AsIntConst(n.value)) {
                if (t.is_float()) return FloatResult(static_cast<double>(*c), t);
                if (t.is_bool()) return IntConst(*c != 0, t);
                if (t.bits() >= 64 || (*c >= -(int64_t{1} << (t.bits() - 1)) &&
                                       *c < (int64_t{1} << (t.bits() - 1))))
                  return IntConst(*c, t);
              }
              if (const double* f = AsFloatConst(n.value)) {
                if (t.is_float()) return FloatResult(*f, t);
              }
              return e;
            },
            [&](const Ramp& n) -> Expr {
              if (n.stride == 0) return MakeBroadcast(n.base, n.lanes);
              return e;
            },
            [&](const auto&) { return e; },
        },
        e->v);
  }

  const VarBounds& bounds_;
};

}  // namespace

Expr Simplify(const Expr& e, const VarBounds& bounds) {
  if (!e) return e;
  return Simplifier(bounds).Run(e);
}

}  // namespace tuneforge::te::arith
