// Fusion: the graph's nodes grouped into subgraphs that each become one
// kernel. A group is a root node (a convolution, a matrix product, a
// reduction, a data movement) with the chain of elementwise nodes that
// consume its result one after another: conv+bias+relu, dense+bias+gelu,
// matmul+add. Reshapes are never in a group: the executor runs them as
// aliases of their input's memory.
#pragma once

#include <vector>

#include "graph/ir/graph.h"

namespace tuneforge::graph {

struct Group {
  std::vector<int> nodes;  // node indices, in order; nodes[0] is the root
  ValueId output = -1;     // what the group writes (its last node's output)
};

std::vector<Group> FuseGraph(const Graph& graph);

}  // namespace tuneforge::graph
