#include "common/schedule/effective_body.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/te/expr_util.h"
#include "common/te/tensor.h"

namespace tuneforge::schedule {

bool IsInlined(const Stage& stage) { return std::holds_alternative<ComputeInlined>(stage.location); }

std::vector<te::Expr> EffectiveBodies(const State& state) {
  std::vector<te::Expr> bodies(state.num_stages());
  absl::flat_hash_map<const te::TensorNode*, int> index;
  for (int i = 0; i < state.num_stages(); ++i) index[state.stage(i).op.get()] = i;
  // Stages come in topological order, so producers are substituted first.
  for (int i = 0; i < state.num_stages(); ++i) {
    const Stage& s = state.stage(i);
    if (s.is_placeholder()) continue;
    bodies[i] = te::ReplaceReads(s.op->body, [&](const te::TensorRead& r, const te::Expr&) {
      auto it = index.find(r.tensor.get());
      if (it == index.end() || !IsInlined(state.stage(it->second))) return te::Expr();
      const Stage& producer = state.stage(it->second);
      te::VarMap map;
      for (size_t d = 0; d < producer.op->axes.size(); ++d)
        map[producer.op->axes[d].var.get()] = r.indices[d];
      return te::Substitute(bodies[it->second], map);
    });
  }
  return bodies;
}

std::vector<std::vector<int>> EffectiveConsumers(const State& state,
                                                 const std::vector<te::Expr>& bodies) {
  std::vector<std::vector<int>> consumers(state.num_stages());
  absl::flat_hash_map<const te::TensorNode*, int> index;
  for (int i = 0; i < state.num_stages(); ++i) index[state.stage(i).op.get()] = i;
  for (int c = 0; c < state.num_stages(); ++c) {
    if (!bodies[c] || IsInlined(state.stage(c))) continue;
    absl::flat_hash_set<int> read;
    te::PostOrderVisit(bodies[c], [&](const te::Expr& e) {
      if (const auto* r = e.as<te::TensorRead>()) {
        auto it = index.find(r->tensor.get());
        if (it != index.end()) read.insert(it->second);
      }
    });
    for (int p : read) consumers[p].push_back(c);
  }
  for (auto& list : consumers) std::sort(list.begin(), list.end());
  return consumers;
}

}  // namespace tuneforge::schedule
