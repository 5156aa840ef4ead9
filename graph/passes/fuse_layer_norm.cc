#include "graph/passes/fuse_layer_norm.h"

#include <memory>
#include <optional>

#include "graph/passes/match.h"

namespace tuneforge::graph {
namespace {

// The first normalised axis of a mean over x's trailing axes that keeps its
// dimensions, or nullopt for any other reduction.
std::optional<int64_t> TrailingMeanAxis(const Graph& g, const Node& n) {
  const auto* r = std::get_if<Reduce>(&n.op);
  if (!r || r->kind != ReduceKind::kMean || !r->keepdims || r->axes.empty()) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(g.values[n.inputs[0]].shape.size());
  for (size_t i = 0; i < r->axes.size(); ++i)
    if (r->axes[i] != rank - static_cast<int64_t>(r->axes.size() - i)) return std::nullopt;
  return r->axes.front();
}

// A constant operand of the binary node at `index` (of `kind`) whose other
// operand is `v`, when the node's output keeps v's shape: gamma or beta.
std::optional<ValueId> AffineOperand(const Graph& g, int index, BinaryKind kind, ValueId v) {
  if (index < 0 || !AsBinary(g.nodes[index], kind)) return std::nullopt;
  std::optional<ValueId> c = Other(g.nodes[index], v);
  if (!c || *c == v || !g.values[*c].is_constant()) return std::nullopt;
  if (g.values[g.nodes[index].output].shape != g.values[v].shape) return std::nullopt;
  return c;
}

struct Match {
  ValueId x;
  int64_t axis;
  double epsilon;
  std::optional<ValueId> gamma, beta;
  int last;  // the node whose output the layer norm writes
};

// The pattern starting at the mean node `mean_index`.
std::optional<Match> MatchLayerNormAt(const Graph& g, int mean_index) {
  const Node& mean = g.nodes[mean_index];
  Match m{.x = mean.inputs[0], .axis = 0, .epsilon = 0, .gamma = {}, .beta = {}, .last = -1};
  std::optional<int64_t> axis = TrailingMeanAxis(g, mean);
  if (!axis || !g.values[m.x].dtype.is_float()) return std::nullopt;
  m.axis = *axis;
  // d = x - m
  int sub = SoleConsumer(g, mean.output);
  if (sub < 0 || !AsBinary(g.nodes[sub], BinaryKind::kSub) || g.nodes[sub].inputs[0] != m.x ||
      g.nodes[sub].inputs[1] != mean.output)
    return std::nullopt;
  const ValueId d = g.nodes[sub].output;
  if (g.values[d].shape != g.values[m.x].shape || g.IsOutput(d)) return std::nullopt;
  std::vector<int> readers = g.Consumers(d);
  if (readers.size() != 2) return std::nullopt;
  // d squared (Pow(d, 2) or d * d) and d / std, in either order.
  int square = -1, div = -1;
  for (int r : readers) {
    const Node& n = g.nodes[r];
    if ((AsBinary(n, BinaryKind::kPow) && n.inputs[0] == d && IsScalar(g, n.inputs[1], 2.0)) ||
        (AsBinary(n, BinaryKind::kMul) && n.inputs[0] == d && n.inputs[1] == d))
      square = r;
    else if (AsBinary(n, BinaryKind::kDiv) && n.inputs[0] == d && n.inputs[1] != d)
      div = r;
  }
  if (square < 0 || div < 0) return std::nullopt;
  // v = mean of the squares over the same axes.
  int var = SoleConsumer(g, g.nodes[square].output);
  if (var < 0 || TrailingMeanAxis(g, g.nodes[var]) != m.axis) return std::nullopt;
  if (std::get<Reduce>(g.nodes[var].op).axes != std::get<Reduce>(mean.op).axes) return std::nullopt;
  // std = Sqrt(v + eps)
  int add = SoleConsumer(g, g.nodes[var].output);
  if (add < 0 || !AsBinary(g.nodes[add], BinaryKind::kAdd)) return std::nullopt;
  std::optional<ValueId> eps = Other(g.nodes[add], g.nodes[var].output);
  std::optional<double> epsilon = eps ? ScalarValue(g, *eps) : std::nullopt;
  if (!epsilon || *epsilon < 0) return std::nullopt;
  m.epsilon = *epsilon;
  int root = SoleConsumer(g, g.nodes[add].output);
  if (root < 0) return std::nullopt;
  const auto* sqrt = std::get_if<Unary>(&g.nodes[root].op);
  if (!sqrt || sqrt->kind != UnaryKind::kSqrt || g.nodes[div].inputs[1] != g.nodes[root].output ||
      SoleConsumer(g, g.nodes[root].output) != div)
    return std::nullopt;
  // Then, optionally, * gamma and + beta (SoleConsumer stops at a graph
  // output: -1, which AffineOperand refuses).
  m.last = div;
  ValueId y = g.nodes[div].output;
  int next = SoleConsumer(g, y);
  if ((m.gamma = AffineOperand(g, next, BinaryKind::kMul, y))) {
    m.last = next;
    y = g.nodes[next].output;
    next = SoleConsumer(g, y);
  }
  if ((m.beta = AffineOperand(g, next, BinaryKind::kAdd, y))) m.last = next;
  return m;
}

// A one-element constant 1 of x's type: the scale of a pattern without gamma.
ValueId AddUnitScale(Graph& g, ValueId x) {
  Value one;
  one.name = g.values[x].name + "/layer_norm_scale";
  one.dtype = g.values[x].dtype;
  one.shape = {1};
  auto array = te::NDArray::Empty(one.dtype, {1});
  if (!array.ok()) return -1;  // one element: cannot fail short of memory
  array->SetDouble(0, 1.0);
  one.constant = std::make_shared<const te::NDArray>(*std::move(array));
  return g.AddValue(std::move(one));
}

}  // namespace

int FuseLayerNorm(Graph& g) {
  int fused = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    std::optional<Match> m = MatchLayerNormAt(g, static_cast<int>(i));
    if (!m) continue;
    ValueId scale = m->gamma ? *m->gamma : AddUnitScale(g, m->x);
    if (scale < 0) continue;
    // The layer norm takes the place of the pattern's last node; the rest is
    // left unread and removed later (RemoveUnusedNodes).
    Node& n = g.nodes[m->last];
    n.op = LayerNorm{m->axis, m->epsilon};
    n.inputs = {m->x, scale};
    if (m->beta) n.inputs.push_back(*m->beta);
    n.source = "LayerNormalization pattern";
    ++fused;
  }
  return fused;
}

}  // namespace tuneforge::graph
