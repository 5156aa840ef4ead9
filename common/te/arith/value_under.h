// The constant value an expression takes when some of its variables take
// constant values: what unrolling needs to decide a condition (a select's,
// an if's) in each copy before building the copy, so the branch not taken
// is never copied. Folds with op_semantics.h, as the simplifier does.
#pragma once

#include <optional>

#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"

namespace tuneforge::te::arith {

// e's value (of e's scalar dtype) when each variable of `values` equals its
// constant; nullopt when e reads anything else (another variable, a tensor,
// a call), is a vector, or has no value (integer division by zero).
// Selects, && and || look only at the operand they need.
std::optional<Scalar> ValueUnder(const Expr& e, const VarMap& values);

}  // namespace tuneforge::te::arith
