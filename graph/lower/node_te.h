// Each graph op as a tensor-expression stage (or a few) over given input
// tensors: ONNX semantics written once. Used to fold constants at import (run
// by the interpreter), to build the stages of fused subgraphs that no library
// op covers, and as the plain reference of a whole model.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/tensor.h"
#include "graph/ir/graph.h"

namespace tuneforge::graph {

// The tensor computing `node`'s output from `inputs` (one per node input, in
// order, with the input values' shapes). Stage names start with `prefix`
// and are unique within the stages this call builds. Constant inputs that
// an op needs as attributes (Gather's indices) are read from `graph`.
absl::StatusOr<te::Tensor> BuildNodeTensor(const Graph& graph, const Node& node,
                                           const std::vector<te::Tensor>& inputs,
                                           const std::string& prefix);

}  // namespace tuneforge::graph
