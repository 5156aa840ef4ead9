#include "common/schedule/effective_body.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/schedule/recently_used.h"
#include "common/te/expr_util.h"
#include "common/te/tensor.h"

namespace tuneforge::schedule {

bool IsInlined(const Stage& stage) { return std::holds_alternative<ComputeInlined>(stage.location); }

namespace {

// EffectiveBodies, reusing `previous`'s bodies (a memo of the same ops with
// other stages inlined) for the stages none of whose producers changed:
// inlining one more stage recomputes only the stages that read it.
std::vector<te::Expr> BodiesReusing(const State& state, const EffectiveStages* previous,
                                    bool constant_matrices_as_one = false) {
  std::vector<te::Expr> bodies(state.num_stages());
  std::vector<bool> changed(state.num_stages(), previous == nullptr);
  absl::flat_hash_map<const te::TensorNode*, int> index;
  for (int i = 0; i < state.num_stages(); ++i) index[state.stage(i).op.get()] = i;
  // Stages come in topological order, so producers are substituted first.
  for (int i = 0; i < state.num_stages(); ++i) {
    const Stage& s = state.stage(i);
    if (s.is_placeholder()) continue;
    if (previous) {
      bool stale = false;
      te::PostOrderVisit(s.op->body, [&](const te::Expr& e) {
        const auto* r = e.as<te::TensorRead>();
        if (!r || stale) return;
        auto it = index.find(r->tensor.get());
        if (it == index.end()) return;
        const int p = it->second;
        const bool inlined = IsInlined(state.stage(p));
        stale = inlined != previous->inlined[p] || (inlined && changed[p]);
      });
      if (!stale) {
        bodies[i] = previous->bodies[i];
        continue;
      }
      changed[i] = true;
    }
    bodies[i] = te::ReplaceReads(s.op->body, [&](const te::TensorRead& r, const te::Expr&) {
      auto it = index.find(r.tensor.get());
      if (it == index.end() || !IsInlined(state.stage(it->second))) return te::Expr();
      const Stage& producer = state.stage(it->second);
      if (constant_matrices_as_one && state.dag()->analysis(it->second).is_constant_matrix)
        return te::Const(1, producer.op->dtype);
      te::VarMap map;
      for (size_t d = 0; d < producer.op->axes.size(); ++d)
        map[producer.op->axes[d].var.get()] = r.indices[d];
      return te::Substitute(bodies[it->second], map);
    });
  }
  return bodies;
}

bool SameOps(const EffectiveStages& memo, const State& state) {
  if (memo.ops.size() != static_cast<size_t>(state.num_stages())) return false;
  for (int i = 0; i < state.num_stages(); ++i)
    if (memo.ops[i] != state.stage(i).op) return false;
  return true;
}

}  // namespace

std::vector<te::Expr> EffectiveBodies(const State& state) { return BodiesReusing(state, nullptr); }

std::vector<te::Expr> EffectiveBodiesWithUnitMatrices(const State& state) {
  return BodiesReusing(state, nullptr, /*constant_matrices_as_one=*/true);
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

namespace {

bool SameInlining(const EffectiveStages& memo, const State& state) {
  for (int i = 0; i < state.num_stages(); ++i)
    if (memo.inlined[i] != IsInlined(state.stage(i))) return false;
  return true;
}

}  // namespace

std::shared_ptr<const EffectiveStages> EffectiveStagesOf(const State& state) {
  const std::shared_ptr<const EffectiveStages>& memo = state.effective_memo();
  const bool same_ops = memo && SameOps(*memo, state);
  if (same_ops && SameInlining(*memo, state)) return memo;
  // The effective stages computed last on this thread, for the step lists
  // of one sketch: they share the DAG after their rewrites and inline the
  // same stages, but each replay starts from a state whose memo predates
  // the inlining. Entries hold their ops, so a match is never a freed DAG's.
  thread_local RecentlyUsed<std::shared_ptr<const EffectiveStages>> recent;
  if (const auto* found = recent.Find([&](const std::shared_ptr<const EffectiveStages>& kept) {
        return SameOps(*kept, state) && SameInlining(*kept, state);
      }))
    return *found;
  auto out = std::make_shared<EffectiveStages>();
  for (const Stage& s : state.stages()) {
    out->ops.push_back(s.op);
    out->inlined.push_back(IsInlined(s));
  }
  out->bodies = BodiesReusing(state, same_ops ? memo.get() : nullptr);
  out->consumers = EffectiveConsumers(state, out->bodies);
  recent.Add(out);
  return out;
}

}  // namespace tuneforge::schedule
