// A BatchNormalization right after a convolution (or a transposed one of
// one group) with constant weights
// becomes part of the convolution: its scale multiplies the weights and its
// shift becomes (or adjusts) the bias, so the tuned kernel is a plain
// conv2d+bias (conv2d_transpose+bias). A batch norm anywhere else stays an
// elementwise op.
#pragma once

#include "absl/status/statusor.h"
#include "graph/ir/graph.h"

namespace tuneforge::graph {

// Returns how many batch norms were folded.
absl::StatusOr<int> FoldBatchNorm(Graph& graph);

}  // namespace tuneforge::graph
