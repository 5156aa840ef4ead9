#include "common/te/op_semantics.h"

#include <cmath>
#include <limits>

namespace tuneforge::te {
namespace {

int64_t SaturatingToInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

Scalar Bool(bool b) { return {b ? 1 : 0, 0}; }

// Comparisons and logic mean the same on integers and floats.
template <typename T>
std::optional<Scalar> CompareOrLogic(BinOp op, T x, T y) {
  switch (op) {
    case BinOp::kEQ: return Bool(x == y);
    case BinOp::kNE: return Bool(x != y);
    case BinOp::kLT: return Bool(x < y);
    case BinOp::kLE: return Bool(x <= y);
    case BinOp::kGT: return Bool(x > y);
    case BinOp::kGE: return Bool(x >= y);
    case BinOp::kAnd: return Bool(x != 0 && y != 0);
    case BinOp::kOr: return Bool(x != 0 || y != 0);
    default: return std::nullopt;  // arithmetic: FloatBinary / IntBinary
  }
}

std::optional<Scalar> FloatBinary(BinOp op, DType t, double x, double y) {
  auto round = [&](double r) { return Normalize(t, {0, r}); };
  switch (op) {
    case BinOp::kAdd: return round(x + y);
    case BinOp::kSub: return round(x - y);
    case BinOp::kMul: return round(x * y);
    case BinOp::kDiv: return round(x / y);
    case BinOp::kMod: return round(std::fmod(x, y));
    case BinOp::kFloorDiv: return round(std::floor(round(x / y).f));
    case BinOp::kFloorMod: return round(x - std::floor(round(x / y).f) * y);
    case BinOp::kMin: return Scalar{0, y < x ? y : x};
    case BinOp::kMax: return Scalar{0, x < y ? y : x};
    case BinOp::kEQ:
    case BinOp::kNE:
    case BinOp::kLT:
    case BinOp::kLE:
    case BinOp::kGT:
    case BinOp::kGE:
    case BinOp::kAnd:
    case BinOp::kOr: return CompareOrLogic(op, x, y);
  }
  return std::nullopt;
}

std::optional<Scalar> IntBinary(BinOp op, DType t, int64_t x, int64_t y) {
  auto wrap = [&](int64_t r) { return Normalize(t, {r, 0}); };
  if (BinOpClass(op) == OpClass::kDivision) {
    if (y == 0) return std::nullopt;
    // MIN / -1 overflows in C; the wrapped quotient is -MIN == MIN, remainder 0.
    if (y == -1) {
      bool quotient = op == BinOp::kDiv || op == BinOp::kFloorDiv;
      return quotient ? wrap(WrapSub(0, x)) : Scalar{0, 0};
    }
  }
  switch (op) {
    case BinOp::kAdd: return wrap(WrapAdd(x, y));
    case BinOp::kSub: return wrap(WrapSub(x, y));
    case BinOp::kMul: return wrap(WrapMul(x, y));
    case BinOp::kDiv: return wrap(x / y);
    case BinOp::kMod: return wrap(x % y);
    case BinOp::kFloorDiv: return wrap(FloorDiv(x, y));
    case BinOp::kFloorMod: return wrap(FloorMod(x, y));
    case BinOp::kMin: return Scalar{y < x ? y : x, 0};
    case BinOp::kMax: return Scalar{x < y ? y : x, 0};
    case BinOp::kEQ:
    case BinOp::kNE:
    case BinOp::kLT:
    case BinOp::kLE:
    case BinOp::kGT:
    case BinOp::kGE:
    case BinOp::kAnd:
    case BinOp::kOr: return CompareOrLogic(op, x, y);
  }
  return std::nullopt;
}

}  // namespace

Scalar Normalize(DType t, Scalar v) {
  switch (t.scalar) {
    case ScalarType::kFloat32:
      v.f = static_cast<double>(static_cast<float>(v.f));
      break;
    case ScalarType::kFloat64:
      break;
    case ScalarType::kBool:
      v.i = v.i != 0;
      break;
    case ScalarType::kInt8:  // through unsigned types: no undefined behaviour
      v.i = static_cast<int8_t>(static_cast<uint8_t>(v.i));
      break;
    case ScalarType::kInt32:
      v.i = static_cast<int32_t>(static_cast<uint32_t>(v.i));
      break;
    case ScalarType::kInt64:
      break;
  }
  return v;
}

Scalar Convert(Scalar v, DType from, DType to) {
  Scalar out;
  if (to.is_bool()) {
    out.i = from.is_float() ? v.f != 0 : v.i != 0;
  } else if (to.is_float()) {
    if (from.is_float()) {
      out.f = v.f;
    } else if (to.scalar == ScalarType::kFloat32) {
      out.f = static_cast<double>(static_cast<float>(v.i));  // one rounding, not two
    } else {
      out.f = static_cast<double>(v.i);
    }
  } else {
    out.i = from.is_float() ? SaturatingToInt(v.f) : v.i;
  }
  return Normalize(to, out);
}

bool Truthy(DType t, Scalar v) { return t.is_float() ? v.f != 0 : v.i != 0; }

DType BinaryResultType(BinOp op, DType operand) {
  switch (BinOpClass(op)) {
    case OpClass::kComparison:
    case OpClass::kLogical:
      return DType{ScalarType::kBool, operand.lanes};
    case OpClass::kArithmetic:
    case OpClass::kDivision:
    case OpClass::kMinMax:
      return operand;
  }
  return operand;
}

std::optional<Scalar> ApplyBinary(BinOp op, DType operand, Scalar a, Scalar b) {
  DType t = BinaryResultType(op, operand);
  if (operand.is_float()) return FloatBinary(op, t, a.f, b.f);
  return IntBinary(op, t, a.i, b.i);
}

double ApplyIntrinsic(Intrinsic fn, DType t, double x, double y) {
  const bool f32 = t.scalar != ScalarType::kFloat64;
  auto f = [&](float (*g32)(float), double (*g64)(double)) {
    return f32 ? static_cast<double>(g32(static_cast<float>(x))) : g64(x);
  };
  double r = 0;
  switch (fn) {
    case Intrinsic::kExp: r = f(std::exp, std::exp); break;
    case Intrinsic::kLog: r = f(std::log, std::log); break;
    case Intrinsic::kSqrt: r = f(std::sqrt, std::sqrt); break;
    case Intrinsic::kRsqrt: r = 1.0 / f(std::sqrt, std::sqrt); break;
    case Intrinsic::kTanh: r = f(std::tanh, std::tanh); break;
    case Intrinsic::kSigmoid:
      r = 1.0 / (1.0 + (f32 ? std::exp(-static_cast<float>(x)) : std::exp(-x)));
      break;
    case Intrinsic::kErf: r = f(std::erf, std::erf); break;
    case Intrinsic::kAbs: r = std::fabs(x); break;
    case Intrinsic::kFloor: r = std::floor(x); break;
    case Intrinsic::kCeil: r = std::ceil(x); break;
    case Intrinsic::kRound: r = std::round(x); break;
    case Intrinsic::kPow:
      r = f32 ? static_cast<double>(std::pow(static_cast<float>(x), static_cast<float>(y)))
              : std::pow(x, y);
      break;
  }
  return Normalize(t.is_float() ? t.element() : DType::Float32(), {0, r}).f;
}

std::optional<Scalar> ConstantValue(const Expr& e) {
  if (!e || e.dtype().is_vector()) return std::nullopt;
  if (const auto* n = e.as<IntImm>()) return Convert({n->value, 0}, DType::Int64(), e.dtype());
  if (const auto* n = e.as<FloatImm>()) return Convert({0, n->value}, DType::Float64(), e.dtype());
  return std::nullopt;
}

bool IsZeroConstant(const Expr& e) {
  if (const auto* b = e.as<Broadcast>()) return IsZeroConstant(b->value);
  std::optional<Scalar> c = ConstantValue(e);
  if (!c) return false;
  return e.dtype().is_float() ? c->f == 0 : c->i == 0;
}

Expr ConstantExpr(DType t, Scalar v) {
  v = Normalize(t, v);
  return t.is_float() ? FloatConst(v.f, t) : IntConst(v.i, t);
}

}  // namespace tuneforge::te
