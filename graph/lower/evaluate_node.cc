#include "graph/lower/evaluate_node.h"

#include "absl/strings/str_cat.h"
#include "common/te/compute_dag.h"
#include "common/te/interpreter.h"
#include "graph/lower/node_te.h"

namespace tuneforge::graph {

absl::StatusOr<te::NDArray> EvaluateNode(const Graph& graph, const Node& node) {
  std::vector<te::Tensor> placeholders;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Value& v = graph.values[node.inputs[i]];
    if (!v.is_constant())
      return absl::InvalidArgumentError(absl::StrCat("input '", v.name, "' is not constant"));
    placeholders.push_back(te::Placeholder(absl::StrCat("in", i), v.shape, v.dtype));
  }
  auto out = BuildNodeTensor(graph, node, placeholders, "out");
  if (!out.ok()) return out.status();
  auto dag = te::ComputeDag::Create({*out});
  if (!dag.ok()) return dag.status();
  // The interpreter takes inputs in the DAG's placeholder order; a node may
  // not read every input (Gather reads its indices as constants).
  std::vector<te::NDArray> inputs;
  for (int op : dag->InputOps()) {
    for (size_t i = 0; i < placeholders.size(); ++i) {
      if (dag->ops()[op].get() != placeholders[i].get()) continue;
      auto copy = graph.values[node.inputs[i]].constant->Copy();
      if (!copy.ok()) return copy.status();
      inputs.push_back(*std::move(copy));
    }
  }
  auto results = te::Interpret(*dag, inputs);
  if (!results.ok()) return results.status();
  return std::move(results->front());
}

}  // namespace tuneforge::graph
