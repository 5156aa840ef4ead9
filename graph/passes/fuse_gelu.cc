#include "graph/passes/fuse_gelu.h"

#include <cmath>
#include <optional>

#include "graph/passes/match.h"

namespace tuneforge::graph {
namespace {

// x for an erf node computing erf(x / sqrt 2) or erf(x * (1 / sqrt 2)).
std::optional<ValueId> ErfArgument(const Graph& g, const Node& erf) {
  int p = g.Producer(erf.inputs[0]);
  if (p < 0) return std::nullopt;
  const Node& scale = g.nodes[p];
  if (AsBinary(scale, BinaryKind::kDiv) && IsScalar(g, scale.inputs[1], std::sqrt(2.0))) return scale.inputs[0];
  if (AsBinary(scale, BinaryKind::kMul)) {
    if (IsScalar(g, scale.inputs[1], 1 / std::sqrt(2.0))) return scale.inputs[0];
    if (IsScalar(g, scale.inputs[0], 1 / std::sqrt(2.0))) return scale.inputs[1];
  }
  return std::nullopt;
}

// The value a GELU pattern around `erf_index` writes, with its input x.
std::optional<std::pair<ValueId, ValueId>> MatchGeluAt(const Graph& g, int erf_index) {
  const Node& erf = g.nodes[erf_index];
  std::optional<ValueId> x = ErfArgument(g, erf);
  if (!x) return std::nullopt;
  int add = SoleConsumer(g, erf.output);
  if (add < 0 || !AsBinary(g.nodes[add], BinaryKind::kAdd)) return std::nullopt;
  std::optional<ValueId> one = Other(g.nodes[add], erf.output);
  if (!one || !IsScalar(g, *one, 1.0)) return std::nullopt;
  int mul = SoleConsumer(g, g.nodes[add].output);
  if (mul < 0 || !AsBinary(g.nodes[mul], BinaryKind::kMul)) return std::nullopt;
  std::optional<ValueId> lhs = Other(g.nodes[mul], g.nodes[add].output);
  if (!lhs) return std::nullopt;
  if (*lhs == *x) {  // (x * (1 + erf)) * 0.5
    int half = SoleConsumer(g, g.nodes[mul].output);
    if (half < 0 || !AsBinary(g.nodes[half], BinaryKind::kMul)) return std::nullopt;
    std::optional<ValueId> c = Other(g.nodes[half], g.nodes[mul].output);
    if (!c || !IsScalar(g, *c, 0.5)) return std::nullopt;
    return std::make_pair(*x, g.nodes[half].output);
  }
  // (x * 0.5) * (1 + erf)
  int h = g.Producer(*lhs);
  if (h < 0 || !AsBinary(g.nodes[h], BinaryKind::kMul)) return std::nullopt;
  std::optional<ValueId> c = Other(g.nodes[h], *x);
  if (!c || !IsScalar(g, *c, 0.5)) return std::nullopt;
  return std::make_pair(*x, g.nodes[mul].output);
}

}  // namespace

int FuseGelu(Graph& g) {
  int fused = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto* u = std::get_if<Unary>(&g.nodes[i].op);
    if (!u || u->kind != UnaryKind::kErf) continue;
    auto match = MatchGeluAt(g, static_cast<int>(i));
    if (!match) continue;
    const auto [x, out] = *match;
    if (g.values[x].shape != g.values[out].shape) continue;
    // The gelu node takes the place of the last node of the pattern (which
    // writes `out`); the rest is left unread and removed later.
    int last = g.Producer(out);
    Node& n = g.nodes[last];
    n.op = Unary{UnaryKind::kGelu};
    n.inputs = {x};
    n.source = "Gelu pattern";
    ++fused;
  }
  return fused;
}

}  // namespace tuneforge::graph
