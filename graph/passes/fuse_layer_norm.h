// Layer normalisation as exporters write it before opset 17 (PyTorch's
// nn.LayerNorm at opset 13, BERT's encoder layers): nine nodes,
//   m = ReduceMean(x), d = x - m, v = ReduceMean(d^2 or d*d),
//   y = d / Sqrt(v + eps) [* gamma] [+ beta],
// over the trailing axes, becomes one layer_norm node. It then runs as one
// task (two reductions in one kernel) instead of five tasks and kernels, and
// Pow's call per element becomes a multiply.
#pragma once

#include "graph/ir/graph.h"

namespace tuneforge::graph {

// Returns how many patterns were replaced.
int FuseLayerNorm(Graph& graph);

}  // namespace tuneforge::graph
