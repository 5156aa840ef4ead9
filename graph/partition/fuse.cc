#include "graph/partition/fuse.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"

namespace tuneforge::graph {
namespace {

// Whether `node` may join the group that writes `chain` (one of its inputs):
// it is elementwise over exactly the chain's shape, and nothing else reads
// the chain's value (or it would have to be written out as well).
bool JoinsChain(const Graph& g, const Node& node, ValueId chain) {
  if (!IsElementwise(node.op)) return false;
  if (g.values[node.output].shape != g.values[chain].shape) return false;
  if (g.IsOutput(chain) || g.Consumers(chain).size() != 1) return false;
  int uses = 0;
  for (ValueId in : node.inputs) uses += in == chain;
  return uses == 1;
}

}  // namespace

std::vector<Group> FuseGraph(const Graph& g) {
  std::vector<Group> groups;
  absl::flat_hash_map<ValueId, size_t> group_of_output;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    if (IsReshape(node.op)) continue;
    bool joined = false;
    for (ValueId in : node.inputs) {
      auto it = group_of_output.find(in);
      if (it == group_of_output.end() || !JoinsChain(g, node, in)) continue;
      Group& group = groups[it->second];
      group.nodes.push_back(static_cast<int>(i));
      group.output = node.output;
      group_of_output.erase(it);
      group_of_output[node.output] = &group - groups.data();
      joined = true;
      break;
    }
    if (joined) continue;
    groups.push_back(Group{{static_cast<int>(i)}, node.output});
    group_of_output[node.output] = groups.size() - 1;
  }
  // A group runs where its last node stood: an elementwise node that joined
  // a chain may read values computed after the chain's root.
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.nodes.back() < b.nodes.back(); });
  return groups;
}

}  // namespace tuneforge::graph
