// The graph passes, in order (pipeline.cc says why this order).
#pragma once

#include "absl/status/statusor.h"
#include "graph/ir/graph.h"

namespace tuneforge::graph {

struct PassReport {
  int batch_norms_folded = 0;
  int gelus_fused = 0;
  int layer_norms_fused = 0;
  int unused_nodes_removed = 0;
};

// Runs every pass on an imported graph. Constant folding and shape
// arithmetic already happened at import (onnx/import_context.h).
absl::StatusOr<PassReport> RunGraphPasses(Graph& graph);

}  // namespace tuneforge::graph
