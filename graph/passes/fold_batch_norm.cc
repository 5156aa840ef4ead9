#include "graph/passes/fold_batch_norm.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "graph/passes/rewrite.h"

namespace tuneforge::graph {
namespace {

bool AllConstant(const Graph& g, const std::vector<ValueId>& ids) {
  for (ValueId id : ids)
    if (!g.values[id].is_constant()) return false;
  return true;
}

// Folds bn (reading conv's output) into conv; false when the pattern does not apply.
absl::StatusOr<bool> FoldInto(Graph& g, int conv_index, int bn_index) {
  Node& conv = g.nodes[conv_index];
  const Node& bn = g.nodes[bn_index];
  const double epsilon = std::get<BatchNorm>(bn.op).epsilon;
  std::vector<ValueId> params(bn.inputs.begin() + 1, bn.inputs.end());
  std::vector<ValueId> weights(conv.inputs.begin() + 1, conv.inputs.end());
  if (!AllConstant(g, params) || !AllConstant(g, weights)) return false;
  const Value& w = g.values[conv.inputs[1]];
  // Output channel k's weights: w[k, ...] for a convolution; w[c, k, ...]
  // (k within its group) for a transposed one, group 1 only.
  const bool transposed = std::holds_alternative<ConvTranspose>(conv.op);
  const int64_t K = transposed ? w.shape[1] : w.shape[0];
  const int64_t per_channel = w.num_elements() / K;
  const int64_t inner = transposed ? w.num_elements() / (w.shape[0] * K) : per_channel;
  auto flat = [&](int64_t k, int64_t i) {  // i-th weight of output channel k
    return transposed ? (i / inner) * K * inner + k * inner + i % inner : k * per_channel + i;
  };
  const te::NDArray& scale = *g.values[bn.inputs[1]].constant;
  const te::NDArray& shift = *g.values[bn.inputs[2]].constant;
  const te::NDArray& mean = *g.values[bn.inputs[3]].constant;
  const te::NDArray& var = *g.values[bn.inputs[4]].constant;
  auto new_w = w.constant->Copy();
  auto new_b = te::NDArray::Empty(w.dtype, {K});
  if (!new_w.ok()) return new_w.status();
  if (!new_b.ok()) return new_b.status();
  for (int64_t k = 0; k < K; ++k) {
    double factor = scale.GetDouble(k) / std::sqrt(var.GetDouble(k) + epsilon);
    for (int64_t i = 0; i < per_channel; ++i)
      new_w->SetDouble(flat(k, i), w.constant->GetDouble(flat(k, i)) * factor);
    double bias = conv.inputs.size() > 2 ? g.values[conv.inputs[2]].constant->GetDouble(k) : 0.0;
    new_b->SetDouble(k, (bias - mean.GetDouble(k)) * factor + shift.GetDouble(k));
  }
  Value wv{absl::StrCat(w.name, "/bn_folded"), w.dtype, w.shape, nullptr};
  wv.constant = std::make_shared<const te::NDArray>(*std::move(new_w));
  Value bv{absl::StrCat(g.values[bn.output].name, "/bias"), w.dtype, {K}, nullptr};
  bv.constant = std::make_shared<const te::NDArray>(*std::move(new_b));
  ValueId wid = g.AddValue(std::move(wv)), bid = g.AddValue(std::move(bv));
  Node& c = g.nodes[conv_index];
  c.inputs.resize(2);
  c.inputs[1] = wid;
  c.inputs.push_back(bid);
  // The conv now writes what the batch norm wrote.
  ReplaceUses(g, g.nodes[bn_index].output, c.output);
  return true;
}

}  // namespace

absl::StatusOr<int> FoldBatchNorm(Graph& g) {
  int folded = 0;
  std::vector<int> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!std::holds_alternative<BatchNorm>(g.nodes[i].op)) continue;
    int producer = g.Producer(g.nodes[i].inputs[0]);
    if (producer < 0) continue;
    const Op& op = g.nodes[producer].op;
    const auto* transposed = std::get_if<ConvTranspose>(&op);
    if (!std::holds_alternative<Conv>(op) && !(transposed && transposed->group == 1)) continue;
    ValueId conv_out = g.nodes[producer].output;
    if (g.Consumers(conv_out).size() != 1 || g.IsOutput(conv_out)) continue;
    auto ok = FoldInto(g, producer, static_cast<int>(i));
    if (!ok.ok()) return ok.status();
    if (!*ok) continue;
    dead.push_back(static_cast<int>(i));
    ++folded;
  }
  RemoveNodes(g, dead);
  return folded;
}

}  // namespace tuneforge::graph
