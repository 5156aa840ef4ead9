// Epilogues: elementwise stages chained after any op of the library with '+'
// in a workload spec ("conv2d+bias+relu", "matmul+relu", "dense+bias+gelu").
// Each epilogue is exactly one compute stage that reads the previous stage at
// its own indices, so a schedule can fuse it into the producer's tile.
//
// The closed list (name, what the stage computes from x = previous stage):
//   bias        x + bias[c]          c: the op's channel axis; new input `bias` [channels]
//   add         x + residual[...]    new input `residual` of the output's shape
//   mul         x * scale[...]       new input `scale` of the output's shape
//   relu        max(x, 0)
//   relu6       min(max(x, 0), 6)
//   leaky_relu  select(x > 0, x, x * 0.01)
//   sigmoid     sigmoid(x)                             (float dtypes only)
//   tanh        tanh(x)                                (float dtypes only)
//   gelu        x * 0.5 * (1 + erf(x * 0.70710678))    (float dtypes only)
//   silu        x * sigmoid(x)                         (float dtypes only)
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/te/ops/built_op.h"
#include "common/te/ops/op_inputs.h"

namespace tuneforge::te::ops {

struct EpilogueInfo {
  std::string name;
  std::string meaning;
};
std::vector<EpilogueInfo> ListEpilogues();
bool IsEpilogue(absl::string_view name);

// `base` followed by the epilogue stage; the stage and any new input get
// names not yet used in base's DAG ("relu", then "relu_1" for a second one).
// `operand` (bias, add, mul only; op_inputs.h): the tensor the epilogue
// reads besides the previous stage, instead of a new placeholder.
absl::StatusOr<BuiltOp> ApplyEpilogue(absl::string_view name, const BuiltOp& base,
                                      const OpInputs& operand = {});

}  // namespace tuneforge::te::ops
