// The functions a definition can call: one closed list, looked up by name.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "absl/strings/string_view.h"
#include "common/te/expr.h"

namespace tuneforge::te::definition {

// exp, log, sqrt, rsqrt, tanh, sigmoid, erf, abs, floor, ceil, round, pow.
struct IntrinsicFn {
  Intrinsic fn;
};
// float32(x), int32(x), ...: converts to `to`.
struct CastFn {
  DType to;
};
// select(condition, if_true, if_false).
struct SelectFn {};
// min/max: binary with two arguments, a reduction with axes.
struct MinMaxFn {
  BinOp binary;
  Combiner combiner;
};
// sum(value, k: extent, ... [where condition]).
struct SumFn {};

using Function = std::variant<IntrinsicFn, CastFn, SelectFn, MinMaxFn, SumFn>;

std::optional<Function> LookupFunction(absl::string_view name);
// "exp, log, ..., select, min, max, sum, float32, ..." for error messages.
std::string FunctionNames();

}  // namespace tuneforge::te::definition
