// What every operator computes on every scalar type, in one place. The
// reference interpreter evaluates with these functions and the simplifier
// folds constants with them, so a folded constant is always the value the
// unfolded expression has when interpreted.
//
// Semantics (those of the generated C-like code):
// - every result is rounded to its dtype: float32 arithmetic is float32
//   (computed in double, then rounded once, which is exact for + - * /);
//   int8 / int32 / int64 wrap around (two's complement); bools are 0 / 1;
// - kDiv / kMod truncate toward zero on integers, kFloorDiv rounds toward
//   -inf and kFloorMod takes the divisor's sign; MIN / -1 wraps to MIN with
//   remainder 0; integer division or modulo by zero has no value;
// - on floats kDiv is IEEE division (x / 0 is +-inf or NaN), kMod is fmod,
//   kFloorDiv is floor(a / b) and kFloorMod is a - floor(a / b) * b;
// - min(a, b) is `b < a ? b : a` and max(a, b) is `a < b ? b : a` (std::min /
//   std::max, the select code generation emits): when the operands are
//   equal or unordered (a NaN) the result is `a`, so min(+0, -0) is +0;
// - comparisons are IEEE (any comparison with NaN is false except !=);
//   && and || test operands against zero (NaN is true);
// - casts: float -> int truncates toward zero (NaN -> 0; out of int64 range
//   saturates, then wraps to the width); anything -> bool is `!= 0`;
//   int -> float rounds once to the target precision; int -> int wraps;
// - intrinsics: round() rounds half away from zero (C's round), rsqrt is
//   1 / sqrt, sigmoid is 1 / (1 + exp(-x)).
#pragma once

#include <cstdint>
#include <optional>

#include "common/te/dtype.h"
#include "common/te/expr.h"

namespace tuneforge::te {

// The family of an operator, said once per operator (an exhaustive switch,
// so a new operator does not compile until it names its family).
enum class OpClass : uint8_t {
  kArithmetic,  // + - *
  kDivision,    // / % // %%: integer division by zero has no value
  kMinMax,
  kComparison,  // result is bool
  kLogical,     // && ||: operands tested against zero, result is bool
};
OpClass BinOpClass(BinOp op);

// A scalar of a known dtype: `i` holds bools (0 / 1) and integers
// (sign-extended from their width), `f` floats (a float32 value is exactly
// representable in float32).
struct Scalar {
  int64_t i = 0;
  double f = 0;
};

// Rounds a value to `t` (wraps integers, rounds float32, bools to 0 / 1).
Scalar Normalize(DType t, Scalar v);
// The value `v` of type `from` converted to `to` (a Cast node).
Scalar Convert(Scalar v, DType from, DType to);
// Whether a value is non-zero (conditions, &&, ||, !).
bool Truthy(DType t, Scalar v);

// Type of `a <op> b` for operands of type `operand`: bool for comparisons
// and logic, `operand` otherwise.
DType BinaryResultType(BinOp op, DType operand);
// a <op> b for two values of type `operand`, rounded to the result type.
// nullopt where the operation has no value (integer division or modulo by
// zero): an evaluator reports an error there and folding leaves it alone.
std::optional<Scalar> ApplyBinary(BinOp op, DType operand, Scalar a, Scalar b);
// fn(x[, y]) computed in the precision of `t` (float32 through the float
// overloads, as compiled float code does) and rounded to `t`.
double ApplyIntrinsic(Intrinsic fn, DType t, double x, double y = 0);

// The value of a scalar constant node (IntImm or FloatImm) rounded to its
// dtype, as the interpreter reads it; nullopt for anything else.
std::optional<Scalar> ConstantValue(const Expr& e);
// A constant node of scalar type `t` holding `v` (normalized to `t`).
Expr ConstantExpr(DType t, Scalar v);
// Whether `e` is the constant 0 (or 0.0), or a vector of it (a Broadcast).
bool IsZeroConstant(const Expr& e);

// Integer wrap-around on int64 without undefined behaviour.
inline int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

}  // namespace tuneforge::te
