// Reference interpreter: evaluates a ComputeDag straight from its
// expressions, one element at a time. It shares no code with lowering or
// code generation, which makes it the independent oracle that tests and the
// fuzzer compare compiled kernels with. Meant for small shapes: it is a
// tree-walking evaluator, thousands of times slower than compiled code.
//
// Semantics (those of the generated C-like code):
// - every value is rounded to its expression's dtype after each operation
//   (float32 arithmetic in float32; int8/int32 wrap around);
// - kDiv / kMod truncate toward zero for integers (C); kFloorDiv rounds
//   toward -inf and kFloorMod takes the divisor's sign; on floats kMod is
//   fmod, kFloorDiv is floor(a / b) and kFloorMod is a - floor(a / b) * b;
// - integer division by zero is an error (C leaves it undefined);
// - casts: float -> int truncates toward zero (NaN -> 0, out of range
//   saturates); anything -> bool is `!= 0`; int -> int wraps;
// - min/max are `a < b ? a : b` / `a > b ? a : b`;
// - select and &&/|| evaluate only the operand they need, so a guarded
//   out-of-bounds read (padding) is never performed;
// - reductions visit their axes in order (first axis outermost), skip
//   iterations whose condition is false, and start from the combiner's
//   identity;
// - round() rounds half away from zero (C's round), rsqrt is 1 / sqrt,
//   sigmoid is 1 / (1 + exp(-x)).
// A read outside a tensor's shape is an error naming the op, the tensor and
// the index.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/compute_dag.h"
#include "common/te/expr.h"
#include "common/te/ndarray.h"

namespace tuneforge::te {

// Evaluates every compute op. `inputs` holds one array per placeholder, in
// ComputeDag::InputOps() order, with the placeholder's dtype and shape.
// Returns the outputs in ComputeDag::OutputOps() order.
absl::StatusOr<std::vector<NDArray>> Interpret(const ComputeDag& dag,
                                               const std::vector<NDArray>& inputs);

// A scalar result of EvaluateScalar: `i` for bools and ints, `f` for floats.
struct ScalarValue {
  DType dtype;
  int64_t i = 0;
  double f = 0;
  double AsDouble() const { return dtype.is_float() ? f : static_cast<double>(i); }
};

// Evaluates a scalar expression with the given variable values (no tensor
// reads, no reductions): for checking arithmetic semantics.
absl::StatusOr<ScalarValue> EvaluateScalar(
    const Expr& e, const std::vector<std::pair<Var, int64_t>>& bindings = {});

}  // namespace tuneforge::te
