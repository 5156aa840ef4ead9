// Evaluates one node whose inputs are all constant with the reference
// interpreter: constant folding at import (shape arithmetic, transposed
// weights) without a second copy of any op's semantics.
#pragma once

#include "absl/status/statusor.h"
#include "common/te/ndarray.h"
#include "graph/ir/graph.h"

namespace tuneforge::graph {

// Errors: a non-constant input, or the node's stage failing to build.
absl::StatusOr<te::NDArray> EvaluateNode(const Graph& graph, const Node& node);

}  // namespace tuneforge::graph
