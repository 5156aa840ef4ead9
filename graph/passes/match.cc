#include "graph/passes/match.h"

#include <cmath>

namespace tuneforge::graph {

std::optional<double> ScalarValue(const Graph& g, ValueId v) {
  const Value& value = g.values[v];
  if (!value.is_constant() || value.constant->num_elements() != 1) return std::nullopt;
  return value.constant->GetDouble(0);
}

bool IsScalar(const Graph& g, ValueId v, double want) {
  std::optional<double> value = ScalarValue(g, v);
  return value && std::abs(*value - want) < 1e-4 * std::abs(want);
}

const Binary* AsBinary(const Node& n, BinaryKind kind) {
  const auto* b = std::get_if<Binary>(&n.op);
  return b && b->kind == kind ? b : nullptr;
}

std::optional<ValueId> Other(const Node& n, ValueId known) {
  if (n.inputs[0] == known) return n.inputs[1];
  if (n.inputs[1] == known) return n.inputs[0];
  return std::nullopt;
}

int SoleConsumer(const Graph& g, ValueId v) {
  if (g.IsOutput(v)) return -1;
  std::vector<int> c = g.Consumers(v);
  return c.size() == 1 ? c[0] : -1;
}

}  // namespace tuneforge::graph
