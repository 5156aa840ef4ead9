// A fused group as one tensor-expression DAG: the kernel the executor
// compiles and the workload a tuning job searches. Where the group is an op
// of the library with epilogues (conv2d+bias+relu, dense+bias, matmul+add,
// depthwise_conv2d+relu6, ...) the DAG is built by the library itself, so
// its workload key is the key of that spec and records are shared with
// single-op jobs; everything else is built from each node's own stages
// (graph/lower/node_te.h).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/compute_dag.h"
#include "graph/ir/graph.h"
#include "graph/partition/fuse.h"

namespace tuneforge::graph {

struct GroupKernel {
  te::ComputeDagPtr dag;
  // The kernel's arguments: the value behind each DAG placeholder in
  // InputOps() order, then the group's output. A placeholder may have
  // another shape than its value with the same elements in the same order
  // (a matmul's batch dimensions flattened into its rows).
  std::vector<ValueId> args;
  std::string spec;  // the library spec ("conv2d+bias+relu:C=64,..."), or empty
  std::string name;  // "conv2d+bias+relu", or the nodes' ops joined: "softmax", "add+relu"
};

// How a group whose root is a convolution with a 3x3 kernel, stride 1,
// dilation 1 and one group computes it: directly, or by Winograd's
// F(4x4, 3x3) (conv2d_winograd: fewer multiplies, through transforms; the
// faster of the two depends on the shape and the tuning). Other groups are
// the same either way.
enum class ConvAlgorithm { kDirect, kWinograd };

absl::StatusOr<GroupKernel> BuildGroupKernel(const Graph& graph, const Group& group,
                                             ConvAlgorithm conv = ConvAlgorithm::kDirect);

}  // namespace tuneforge::graph
