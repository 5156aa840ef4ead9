// The compute-definition language: a new operator needs only its math.
//
//   # comments run to the end of the line
//   let N = 1024                    # integer (or float) constants: shapes, indices, values
//   let OH = (N - 3) // 1 + 1       # arithmetic on constants is folded
//   input A: float32[N, 512]        # inputs: a type and a shape
//   input B: float32[512, 256] constant   # a weight: fixed before the kernel runs
//   C[i: N, j: 256] = sum(A[i, k] * B[k, j], k: 512)       # reduction axes declared inline
//   D[i: N, j: 256] = max(C[i, j], 0.0)                    # max/min of two values
//   P[i: N+2, j: 256] = select(i >= 1 && i <= N, C[i-1, j], 0.0)
//   M[i: N] = max(C[i, j], j: 256 where j % 2 == 0)         # max/min reductions, optional where
//   output D, P, M                                          # optional
//
// Statements, one per line (a statement continues on the next line inside ( )
// and [ ], and after a line that ends in an operator, "=" or ","):
//   let NAME = constant-expression
//   input NAME: TYPE[extent, ...] [constant]   TYPE: float32 float64 int8 int32 int64;
//                                          constant: a weight, which a schedule may
//                                          store in another layout once (layout rewrite)
//   NAME[axis: extent, ...] = expression   a computed tensor; the axes are its loop variables
//   output NAME, ...                       the outputs; without it, every computed tensor
//                                          that no other tensor reads
// Expressions: numbers (64, 0.5, 1e-5), let names, axes, tensor reads A[i, k+1],
// + - * / (// floor division, % floor modulo; both on integers), comparisons
// == != < <= > >=, && || !, parentheses, unary minus, select(c, a, b),
// min(a, b), max(a, b), exp log sqrt rsqrt tanh sigmoid erf abs floor ceil
// round pow(a, b), casts float32(x) float64(x) int8(x) int32(x) int64(x), and
// reductions sum/max/min(value, k: extent, ... [where condition]) — only as
// the whole right-hand side of a statement.
// Types: integer literals and lets adapt to the other operand, float
// literals are float32 and adapt too; non-constant operands must agree
// (float32 + float64 or float + int is an error: cast one). Indices and
// extents are integers, conditions are comparisons. Reads must stay inside
// the tensor (checked, see bounds_check.h): guard padding reads with select.
//
// Errors name the line and column, what was expected and what was found:
//   line 3, column 17: expected ']' after the indices of 'A', found ','
// and cover unknown tensors and functions, wrong index counts and arities,
// redefinitions, reads before definition, nested reductions, non-positive
// extents and type mismatches. tests/data/defs/ holds examples.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/te/tensor.h"

namespace tuneforge::te::definition {

// Parses and builds a definition; returns its output tensors in definition
// order. `name` becomes the tag of its computed tensors.
absl::StatusOr<std::vector<Tensor>> BuildDefinition(absl::string_view text, const std::string& name);

}  // namespace tuneforge::te::definition
