#include "graph/passes/pipeline.h"

#include "graph/passes/fold_batch_norm.h"
#include "graph/passes/fuse_gelu.h"
#include "graph/passes/fuse_layer_norm.h"
#include "graph/passes/rewrite.h"

namespace tuneforge::graph {

absl::StatusOr<PassReport> RunGraphPasses(Graph& graph) {
  PassReport report;
  // 1. Batch norms fold into the convolutions before them, so that fusion
  //    (graph/partition/) sees conv+bias and the weights are final.
  auto folded = FoldBatchNorm(graph);
  if (!folded.ok()) return folded.status();
  report.batch_norms_folded = *folded;
  // 2. GELU written out in five nodes becomes one, before fusion, so that a
  //    product's epilogue chain reaches it (dense+bias+gelu).
  report.gelus_fused = FuseGelu(graph);
  // 3. Layer norm written out in nine nodes becomes one, so that it is one
  //    task and kernel (the "its own reduction"), not five.
  report.layer_norms_fused = FuseLayerNorm(graph);
  // 4. Nodes nobody reads (left by folding, or dead in the file) go last,
  //    so they are neither tuned nor run.
  report.unused_nodes_removed = RemoveUnusedNodes(graph);
  return report;
}

}  // namespace tuneforge::graph
