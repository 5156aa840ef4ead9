// Reference interpreter: evaluates a ComputeDag straight from its
// expressions, one element at a time. It shares no code with lowering or
// code generation, which makes it the independent oracle that tests and the
// fuzzer compare compiled kernels with. Meant for small shapes: it is a
// tree-walking evaluator, thousands of times slower than compiled code.
//
// Operators, casts and intrinsics mean what op_semantics.h says (the table
// constant folding uses too); integer division by zero is an error here.
// Beyond that:
// - select and &&/|| evaluate only the operand they need, so a guarded
//   out-of-bounds read (padding) is never performed;
// - reductions visit their axes in order (first axis outermost), skip
//   iterations whose condition is false, and start from the combiner's
//   identity.
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
// The same with variables of any type (a float variable takes `f`).
absl::StatusOr<ScalarValue> EvaluateScalarWith(
    const Expr& e, const std::vector<std::pair<Var, ScalarValue>>& bindings);

}  // namespace tuneforge::te
