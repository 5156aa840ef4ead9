// Small edits the passes share.
#pragma once

#include <vector>

#include "graph/ir/graph.h"

namespace tuneforge::graph {

// Every reader of `from` (nodes and the graph's outputs) reads `to` instead.
void ReplaceUses(Graph& graph, ValueId from, ValueId to);
// Removes the nodes at `indices` (their output values stay, unused).
void RemoveNodes(Graph& graph, std::vector<int> indices);
// Removes nodes whose outputs nobody reads; returns how many.
int RemoveUnusedNodes(Graph& graph);

}  // namespace tuneforge::graph
