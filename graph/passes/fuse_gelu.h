// GELU as exporters write it, x * 0.5 * (1 + erf(x / sqrt(2))) in five
// nodes (Div or Mul, Erf, Add, Mul, Mul, in either operand order, with the
// 0.5 applied first or last), becomes one gelu node, so that fusion sees
// dense+bias+gelu, the library's epilogue.
#pragma once

#include "graph/ir/graph.h"

namespace tuneforge::graph {

// Returns how many patterns were replaced.
int FuseGelu(Graph& graph);

}  // namespace tuneforge::graph
