#include "common/te/arith/simplify.h"

#include <cmath>
#include <optional>

#include "common/overloaded.h"
#include "common/te/arith/sum_form.h"
#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"

namespace tuneforge::te::arith {
namespace {

bool IsIndexType(DType t) { return t.is_int() && t.lanes == 1; }

// The type of loop variables and indices: its arithmetic is taken not to
// overflow (code generation marks it so), which the division rewrites need.
bool IsNonWrapping(DType t) { return t == DType::Index(); }

bool IsConstValue(const Expr& e, double v) {
  std::optional<Scalar> c = ConstantValue(e);
  if (!c) return false;
  return e.dtype().is_float() ? c->f == v : static_cast<double>(c->i) == v;
}
bool IsNegativeZero(const Expr& e) {
  std::optional<Scalar> c = ConstantValue(e);
  return c && e.dtype().is_float() && c->f == 0 && std::signbit(c->f);
}
bool IsPositiveZero(const Expr& e) {
  std::optional<Scalar> c = ConstantValue(e);
  return c && e.dtype().is_float() && c->f == 0 && !std::signbit(c->f);
}

// The value of an integer constant in its own type.
std::optional<int64_t> IntValue(const Expr& e) {
  if (!e.as<IntImm>() || !IsIndexType(e.dtype())) return std::nullopt;
  return ConstantValue(e)->i;
}

// Whether evaluating `e` might have no value (an integer division by what
// may be zero, a read that may be out of bounds). A rewrite that drops such
// a subexpression would turn an error into a value; those rewrites ask here.
bool MayFail(const Expr& e) {
  bool fails = false;
  PostOrderVisit(e, [&](const Expr& x) {
    if (x.as<TensorRead>() || x.as<BufferLoad>()) fails = true;
    const auto* b = x.as<Binary>();
    if (b && BinOpClass(b->op) == OpClass::kDivision && !b->b.dtype().is_float()) {
      std::optional<Scalar> d = ConstantValue(b->b);
      if (!d || d->i == 0) fails = true;
    }
  });
  return fails;
}

// `e` as a bool (the value && and ! give it).
Expr AsBool(const Expr& e) { return MakeCast(DType{ScalarType::kBool, e.dtype().lanes}, e); }

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
      out->constant = WrapAdd(out->constant, WrapMul(scale, *c));
      return;
    }
    if (const auto* b = e.as<Binary>()) {
      if (b->op == BinOp::kAdd || b->op == BinOp::kSub) {
        CollectSum(b->a, scale, out);
        CollectSum(b->b, b->op == BinOp::kAdd ? scale : WrapSub(0, scale), out);
        return;
      }
      if (b->op == BinOp::kMul) {
        Expr a = Run(b->a), c = Run(b->b);
        if (const int64_t* k = AsIntConst(c)) return Merge(a, WrapMul(scale, *k), out);
        if (const int64_t* k = AsIntConst(a)) return Merge(c, WrapMul(scale, *k), out);
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
    const DType t = e.dtype();
    SumForm f;
    CollectSum(e, 1, &f);
    MergeDivModPairs(&f, t);
    f.WrapTo(t);
    for (const Expr& atom : f.dropped)
      if (MayFail(atom)) return Rewrite(MapChildren(e, [&](const Expr& c) { return Run(c); }));
    return FromSumForm(f, t);
  }

  // k*c*floordiv(x, c) + k*floormod(x, c) == k*x: what splitting a fused
  // index back into its parts and recombining it leaves behind. (It holds
  // for every x and c != 0, so also with wrap-around.)
  static void MergeDivModPairs(SumForm* f, DType t) {
    auto wrap = [&](int64_t v) { return Normalize(t, Scalar{v, 0}).i; };
    for (bool merged = true; merged;) {
      merged = false;
      for (size_t m = 0; m < f->terms.size() && !merged; ++m) {
        const auto* mod = f->terms[m].atom.as<Binary>();
        if (!mod || mod->op != BinOp::kFloorMod) continue;
        std::optional<int64_t> c = IntValue(mod->b);
        if (!c || *c == 0) continue;
        int64_t k = f->terms[m].coef;
        for (size_t d = 0; d < f->terms.size(); ++d) {
          const auto* div = f->terms[d].atom.as<Binary>();
          if (!div || div->op != BinOp::kFloorDiv ||
              wrap(f->terms[d].coef) != wrap(WrapMul(k, *c)))
            continue;
          std::optional<int64_t> c2 = IntValue(div->b);
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
    if (c == 1 && op == BinOp::kFloorDiv) return a;
    SumForm f = ToSumForm(a);
    for (const Expr& atom : f.dropped)
      if (MayFail(atom)) return MakeBinary(op, a, IntConst(c, t));
    SumForm quotient, rest;
    for (const SumTerm& term : f.terms) {
      if (term.coef % c == 0) {
        quotient.AddTerm(term.atom, term.coef / c);
      } else {
        rest.AddTerm(term.atom, term.coef);
      }
    }
    // The modulo drops the quotient's terms: not when one might fail.
    if (op == BinOp::kFloorMod)
      for (const SumTerm& term : quotient.terms)
        if (MayFail(term.atom)) return MakeBinary(op, a, IntConst(c, t));
    quotient.constant = FloorDivInt(f.constant, c);
    rest.constant = FloorModInt(f.constant, c);
    Expr rest_expr = FromSumForm(rest, t);
    std::optional<IntInterval> rb = Bounds(rest_expr);
    bool rest_in_one_period = rb && FloorDivInt(rb->lo, c) == FloorDivInt(rb->hi, c);
    if (op == BinOp::kFloorDiv) {
      if (rest_in_one_period && !MayFail(rest_expr)) {
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
      if (const int64_t* k = AsIntConst(inner->b); k && *k != 0 && *k % c == 0)
        rest_expr = inner->a;
    return MakeBinary(BinOp::kFloorMod, rest_expr, IntConst(c, t));
  }

  // Both operands constant: the value the interpreter computes, unless
  // there is none (integer division by zero), which stays as it is.
  static Expr Fold(const Binary& n, DType t) {
    std::optional<Scalar> a = ConstantValue(n.a), b = ConstantValue(n.b);
    if (!a || !b) return Expr();
    DType operand = n.a.dtype();
    std::optional<Scalar> r = ApplyBinary(n.op, operand, *a, Convert(*b, n.b.dtype(), operand));
    return r ? ConstantExpr(t, *r) : Expr();
  }

  // A vector test decided for every lane at once (a padding test over a
  // row's ramp, `ramp(2, 2, 28) >= x28(1)`, holds in all lanes) is a
  // broadcast constant, and `x(true) && v` is v: the select it guards then
  // goes, with the masked load under it.
  Expr DecideLanes(const Binary& n, const Expr& e) {
    const DType t = e.dtype();
    if (std::optional<IntInterval> b = Bounds(e); b && b->is_point() && !MayFail(e))
      return MakeBroadcast(IntConst(b->lo, t.element()), t.lanes);
    if (!IsLogical(n.op)) return e;
    const bool is_and = n.op == BinOp::kAnd;
    auto constant_lanes = [](const Expr& x) -> std::optional<bool> {
      const auto* bc = x.as<Broadcast>();
      if (!bc) return std::nullopt;
      std::optional<Scalar> c = ConstantValue(bc->value);
      if (!c) return std::nullopt;
      return Truthy(bc->value.dtype(), *c);
    };
    // Only the neutral constant is dropped (the other decides the lanes,
    // and Bounds above has taken that case where the other side cannot fail).
    if (std::optional<bool> a = constant_lanes(n.a); a && *a == is_and) return AsBool(n.b);
    if (std::optional<bool> b = constant_lanes(n.b); b && *b == is_and) return AsBool(n.a);
    return e;
  }

  // Vector index algebra on ramps and broadcasts.
  Expr RewriteVector(const Binary& n, const Expr& e) {
    const auto* ra = n.a.as<Ramp>();
    const auto* rb = n.b.as<Ramp>();
    const auto* ba = n.a.as<Broadcast>();
    const auto* bb = n.b.as<Broadcast>();
    if (ba && bb && !IsComparison(n.op) && !IsLogical(n.op))
      return MakeBroadcast(Run(MakeBinary(n.op, ba->value, bb->value)), ba->lanes);
    if (IsComparison(n.op) || IsLogical(n.op)) return DecideLanes(n, e);
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
    if (Expr folded = Fold(n, t)) return folded;
    if (IsLogical(n.op)) {
      // The left operand is evaluated first, so it may be dropped only
      // when it cannot fail.
      bool is_and = n.op == BinOp::kAnd;
      std::optional<Scalar> ca = ConstantValue(n.a), cb = ConstantValue(n.b);
      if (ca) {
        bool c = Truthy(n.a.dtype(), *ca);
        if (is_and) return c ? AsBool(n.b) : IntConst(0, t);
        return c ? IntConst(1, t) : AsBool(n.b);
      }
      if (cb) {
        bool c = Truthy(n.b.dtype(), *cb);
        if (is_and && c) return AsBool(n.a);
        if (!is_and && !c) return AsBool(n.a);
        if (!MayFail(n.a)) return IntConst(is_and ? 0 : 1, t);
      }
      return e;
    }
    std::optional<int64_t> ib = IntValue(n.b);
    if (IsComparison(n.op) || n.op == BinOp::kMin || n.op == BinOp::kMax) {
      if (IsIndexType(n.a.dtype())) {
        // Bounds ignore whether an operand has a value (a select's bounds
        // are its branches'), so what is dropped is asked about.
        if (IsComparison(n.op)) {
          std::optional<IntInterval> b = Bounds(e);
          if (b && b->is_point() && !MayFail(e)) return IntConst(b->lo, t);
          return e;
        }
        std::optional<IntInterval> a = Bounds(n.a), b = Bounds(n.b);
        if (a && b) {
          bool a_le_b = a->hi <= b->lo, b_le_a = b->hi <= a->lo;
          bool keep_a = n.op == BinOp::kMin ? a_le_b : b_le_a;
          bool keep_b = n.op == BinOp::kMin ? b_le_a : a_le_b;
          if (keep_a && !MayFail(n.b)) return n.a;
          if (keep_b && !MayFail(n.a)) return n.b;
        }
      }
      return e;
    }
    if (IsNonWrapping(t)) {
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
      // Exact identities only: x + 0 is not x for x = -0 (it is +0), but
      // x + (-0) and x - 0 are.
      if (n.op == BinOp::kMul && IsConstValue(n.b, 1)) return n.a;
      if (n.op == BinOp::kMul && IsConstValue(n.a, 1)) return n.b;
      if (n.op == BinOp::kAdd && IsNegativeZero(n.b)) return n.a;
      if (n.op == BinOp::kAdd && IsNegativeZero(n.a)) return n.b;
      if (n.op == BinOp::kSub && IsPositiveZero(n.b)) return n.a;
      if (n.op == BinOp::kDiv && IsConstValue(n.b, 1)) return n.a;
    }
    return e;
  }

  Expr Rewrite(const Expr& e) {
    return std::visit(
        Overloaded{
            [&](const Binary& n) { return RewriteBinary(n, e); },
            [&](const Not& n) -> Expr {
              if (std::optional<Scalar> c = ConstantValue(n.a))
                return IntConst(!Truthy(n.a.dtype(), *c), e.dtype());
              if (const auto* inner = n.a.as<Not>()) return AsBool(inner->a);
              return e;
            },
            [&](const Select& n) -> Expr {
              if (std::optional<Scalar> c = ConstantValue(n.cond))
                return Truthy(n.cond.dtype(), *c) ? n.true_value : n.false_value;
              // (A vector condition's bounds are over all its lanes; a
              // scalar arm of a vector select is each lane's value.)
              auto pick = [&](bool holds) {
                const Expr& v = holds ? n.true_value : n.false_value;
                return v.dtype().lanes == e.dtype().lanes ? v : MakeBroadcast(v, e.dtype().lanes);
              };
              std::optional<IntInterval> b = Bounds(n.cond);
              if (b && b->is_point() && !MayFail(n.cond)) return pick(b->lo != 0);
              if (const auto* bc = n.cond.as<Broadcast>())
                if (std::optional<Scalar> c = ConstantValue(bc->value)) return pick(Truthy(bc->value.dtype(), *c));
              if (StructurallyEqual(n.true_value, n.false_value) && !MayFail(n.cond))
                return n.true_value;
              return e;
            },
            [&](const Cast& n) -> Expr {
              DType t = e.dtype();
              if (t.is_vector()) return e;
              if (std::optional<Scalar> c = ConstantValue(n.value))
                return ConstantExpr(t, Convert(*c, n.value.dtype(), t));
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
