#include "graph/passes/rewrite.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"

namespace tuneforge::graph {

void ReplaceUses(Graph& graph, ValueId from, ValueId to) {
  for (Node& n : graph.nodes)
    for (ValueId& in : n.inputs)
      if (in == from) in = to;
  for (ValueId& out : graph.outputs)
    if (out == from) out = to;
}

void RemoveNodes(Graph& graph, std::vector<int> indices) {
  std::sort(indices.begin(), indices.end());
  for (auto it = indices.rbegin(); it != indices.rend(); ++it) graph.nodes.erase(graph.nodes.begin() + *it);
}

int RemoveUnusedNodes(Graph& graph) {
  int removed = 0;
  for (bool changed = true; changed;) {
    changed = false;
    absl::flat_hash_set<ValueId> used(graph.outputs.begin(), graph.outputs.end());
    for (const Node& n : graph.nodes) used.insert(n.inputs.begin(), n.inputs.end());
    std::vector<int> dead;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
      if (!used.contains(graph.nodes[i].output)) dead.push_back(static_cast<int>(i));
    if (!dead.empty()) {
      removed += static_cast<int>(dead.size());
      RemoveNodes(graph, dead);
      changed = true;
    }
  }
  return removed;
}

}  // namespace tuneforge::graph
