// The inputs of a library op. Every builder takes an optional list of input
// tensors in the op's documented order: empty, the op reads fresh
// placeholders (a workload spec); given, it reads those tensors, so a model's
// fused subgraph is the very same DAG as the single-op spec and shares its
// workload key and records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/te/tensor.h"

namespace tuneforge::te::ops {

using OpInputs = std::vector<Tensor>;

// Whether a fresh placeholder is a constant (a weight: TensorNode::constant).
// A given tensor keeps its own: a model's group passes what its values are.
enum class InputKind { kData, kWeight };

// Input `index` of `op`: the caller's tensor, checked to have `shape` and
// `dtype`, or a new placeholder `name` when `given` is empty. Errors name the
// op, the input and both shapes.
absl::StatusOr<Tensor> OpInput(absl::string_view op, const OpInputs& given, size_t index,
                               std::string name, std::vector<int64_t> shape, DType dtype,
                               InputKind kind = InputKind::kData);
// An error unless `given` is empty or has exactly `count` tensors.
absl::Status RequireInputCount(absl::string_view op, const OpInputs& given, size_t count);

}  // namespace tuneforge::te::ops
