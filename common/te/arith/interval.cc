#include "common/te/arith/interval.h"

#include <algorithm>
#include <limits>

#include "common/overloaded.h"
#include "common/te/op_semantics.h"

namespace tuneforge::te::arith {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 4;
constexpr int64_t kMin = -kMax;

int64_t Clamp(__int128 v) {
  if (v > kMax) return kMax;
  if (v < kMin) return kMin;
  return static_cast<int64_t>(v);
}

IntInterval Add(IntInterval a, IntInterval b) {
  return {Clamp(static_cast<__int128>(a.lo) + b.lo), Clamp(static_cast<__int128>(a.hi) + b.hi)};
}
IntInterval Sub(IntInterval a, IntInterval b) {
  return {Clamp(static_cast<__int128>(a.lo) - b.hi), Clamp(static_cast<__int128>(a.hi) - b.lo)};
}
IntInterval Mul(IntInterval a, IntInterval b) {
  __int128 c[4] = {static_cast<__int128>(a.lo) * b.lo, static_cast<__int128>(a.lo) * b.hi,
                   static_cast<__int128>(a.hi) * b.lo, static_cast<__int128>(a.hi) * b.hi};
  return {Clamp(*std::min_element(c, c + 4)), Clamp(*std::max_element(c, c + 4))};
}

const IntInterval kBool{0, 1};

// The bounds of `x != 0` given those of x: {1, 1}, {0, 0} or [0, 1].
std::optional<IntInterval> Truth(std::optional<IntInterval> x) {
  if (!x) return std::nullopt;
  if (x->lo > 0 || x->hi < 0) return IntInterval{1, 1};
  if (x->lo == 0 && x->hi == 0) return IntInterval{0, 0};
  return kBool;
}

// Whether every value of `r` is a value of the integer type `t`: then
// arithmetic that produced it did not wrap around. (int64 index arithmetic
// is taken not to overflow; its bounds are clamped instead.)
bool Fits(DType t, IntInterval r) {
  if (t.is_bool()) return r.lo >= 0 && r.hi <= 1;
  if (t.bits() >= 64) return true;
  int64_t lim = int64_t{1} << (t.bits() - 1);
  return r.lo >= -lim && r.hi < lim;
}

// Bounds of arithmetic, min/max and division, as if nothing wrapped.
std::optional<IntInterval> ArithmeticBounds(const Binary& n, const VarBounds& vars) {
  std::optional<IntInterval> a = ConstBounds(n.a, vars);
  std::optional<IntInterval> b = ConstBounds(n.b, vars);
  if (!a || !b) return std::nullopt;
  switch (n.op) {
    case BinOp::kAdd: return Add(*a, *b);
    case BinOp::kSub: return Sub(*a, *b);
    case BinOp::kMul: return Mul(*a, *b);
    case BinOp::kMin: return IntInterval{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
    case BinOp::kMax: return IntInterval{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    case BinOp::kFloorDiv:
      if (b->is_point() && b->lo > 0)
        return IntInterval{FloorDivInt(a->lo, b->lo), FloorDivInt(a->hi, b->lo)};
      return std::nullopt;
    case BinOp::kDiv:
      if (b->is_point() && b->lo > 0 && a->lo >= 0)
        return IntInterval{a->lo / b->lo, a->hi / b->lo};
      return std::nullopt;
    case BinOp::kFloorMod:
      if (b->is_point() && b->lo > 0) {
        int64_t c = b->lo;
        if (FloorDivInt(a->lo, c) == FloorDivInt(a->hi, c))
          return IntInterval{FloorModInt(a->lo, c), FloorModInt(a->hi, c)};
        return IntInterval{0, c - 1};
      }
      return std::nullopt;
    case BinOp::kMod:
      if (b->is_point() && b->lo > 0 && a->lo >= 0) {
        int64_t c = b->lo;
        if (a->lo / c == a->hi / c) return IntInterval{a->lo % c, a->hi % c};
        return IntInterval{0, c - 1};
      }
      return std::nullopt;
    case BinOp::kEQ: case BinOp::kNE: case BinOp::kLT: case BinOp::kLE: case BinOp::kGT:
    case BinOp::kGE: case BinOp::kAnd: case BinOp::kOr:
      return std::nullopt;  // bools: ConstBounds decides them itself
  }
  return std::nullopt;
}

}  // namespace

int64_t FloorDivInt(int64_t a, int64_t b) {
  return ApplyBinary(BinOp::kFloorDiv, DType::Int64(), Scalar{a, 0}, Scalar{b, 0}).value().i;
}

int64_t FloorModInt(int64_t a, int64_t b) {
  return ApplyBinary(BinOp::kFloorMod, DType::Int64(), Scalar{a, 0}, Scalar{b, 0}).value().i;
}

std::optional<IntInterval> ConstBounds(const Expr& e, const VarBounds& vars) {
  using R = std::optional<IntInterval>;
  DType t = e.dtype();
  if (t.is_float()) return std::nullopt;
  return std::visit(
      Overloaded{
          [&](const IntImm&) -> R {
            int64_t v = ConstantValue(e)->i;
            return IntInterval{v, v};
          },
          [&](const FloatImm&) -> R { return std::nullopt; },
          [&](const VarRef& n) -> R {
            auto it = vars.find(n.var.get());
            if (it == vars.end()) return std::nullopt;
            return it->second;
          },
          [&](const Binary& n) -> R {
            if (IsComparison(n.op) || IsLogical(n.op)) {
              // Decide the comparison when the operand ranges allow it.
              if (IsLogical(n.op)) {
                R a = Truth(ConstBounds(n.a, vars)), b = Truth(ConstBounds(n.b, vars));
                if (!a || !b) return kBool;
                if (n.op == BinOp::kAnd) {
                  if (a->hi == 0 || b->hi == 0) return IntInterval{0, 0};
                  if (a->lo == 1 && b->lo == 1) return IntInterval{1, 1};
                } else {
                  if (a->lo == 1 || b->lo == 1) return IntInterval{1, 1};
                  if (a->hi == 0 && b->hi == 0) return IntInterval{0, 0};
                }
                return kBool;
              }
              if (n.a.dtype().is_float()) return kBool;
              R a = ConstBounds(n.a, vars), b = ConstBounds(n.b, vars);
              if (!a || !b) return kBool;
              IntInterval d = Sub(*a, *b);  // a - b
              auto decide = [&](bool always, bool never) -> R {
                if (always) return IntInterval{1, 1};
                if (never) return IntInterval{0, 0};
                return kBool;
              };
              switch (n.op) {
                case BinOp::kLT: return decide(d.hi < 0, d.lo >= 0);
                case BinOp::kLE: return decide(d.hi <= 0, d.lo > 0);
                case BinOp::kGT: return decide(d.lo > 0, d.hi <= 0);
                case BinOp::kGE: return decide(d.lo >= 0, d.hi < 0);
                case BinOp::kEQ: return decide(d.lo == 0 && d.hi == 0, d.lo > 0 || d.hi < 0);
                case BinOp::kNE: return decide(d.lo > 0 || d.hi < 0, d.lo == 0 && d.hi == 0);
                default: return kBool;
              }
            }
            R r = ArithmeticBounds(n, vars);
            if (r && !t.is_vector() && !Fits(t, *r)) return std::nullopt;
            return r;
          },
          [&](const Not& n) -> R {
            R a = Truth(ConstBounds(n.a, vars));
            if (a && a->is_point()) return IntInterval{1 - a->lo, 1 - a->lo};
            return kBool;
          },
          [&](const Select& n) -> R {
            R c = Truth(ConstBounds(n.cond, vars));
            R a = ConstBounds(n.true_value, vars), b = ConstBounds(n.false_value, vars);
            if (c && c->is_point()) return c->lo ? a : b;
            if (!a || !b) return std::nullopt;
            return IntInterval{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
          },
          [&](const Cast& n) -> R {
            if (n.value.dtype().is_float()) return std::nullopt;
            R v = ConstBounds(n.value, vars);
            if (!v) return std::nullopt;
            if (t.is_bool()) return (v->lo > 0 || v->hi < 0) ? IntInterval{1, 1} : kBool;
            // Narrowing casts may wrap; only keep bounds that fit.
            int64_t lim = t.bits() >= 64 ? kMax : (int64_t{1} << (t.bits() - 1)) - 1;
            if (v->lo < -lim - 1 || v->hi > lim) return std::nullopt;
            return v;
          },
          [&](const Call&) -> R { return std::nullopt; },
          [&](const TensorRead&) -> R { return std::nullopt; },
          [&](const Reduce&) -> R { return std::nullopt; },
          [&](const BufferLoad&) -> R { return std::nullopt; },
          [&](const Ramp& n) -> R {
            R b = ConstBounds(n.base, vars);
            if (!b) return std::nullopt;
            int64_t span = n.stride * (n.lanes - 1);
            return IntInterval{b->lo + std::min<int64_t>(0, span), b->hi + std::max<int64_t>(0, span)};
          },
          [&](const Broadcast& n) -> R { return ConstBounds(n.value, vars); },
      },
      e->v);
}

}  // namespace tuneforge::te::arith
