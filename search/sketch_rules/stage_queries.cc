#include "search/sketch_rules/stage_queries.h"

#include <algorithm>
#include <functional>

#include "common/schedule/loop_transforms.h"
#include "common/te/expr_util.h"

namespace tuneforge::search {

using schedule::State;

bool IsInlined(const State& state, int stage) {
  return std::holds_alternative<schedule::ComputeInlined>(state.stage(stage).location);
}

std::vector<int> EffectiveConsumers(const State& state, int stage) {
  std::vector<int> out;
  std::function<void(int)> visit = [&](int s) {
    for (int c : state.dag()->analysis(s).consumers) {
      if (IsInlined(state, c)) {
        visit(c);
      } else {
        out.push_back(c);
      }
    }
  };
  visit(stage);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int SingleElementwiseConsumer(const State& state, int stage) {
  const te::ComputeDag& dag = *state.dag();
  // Follow the chain of readers; every hop must be element-wise and the
  // chain must not branch.
  int at = stage;
  while (true) {
    const std::vector<int>& consumers = dag.analysis(at).consumers;
    if (consumers.size() != 1) return -1;
    int c = consumers[0];
    if (!dag.ReadsElementwise(c, at)) return -1;
    if (!IsInlined(state, c)) return IsTransformed(state, c) ? -1 : c;
    at = c;
  }
}

bool NeedsMultiLevelTiling(const State& state, int stage) {
  // A stage indexing a constant matrix is tiled by simplify_const_tensor.
  const te::OpAnalysis& a = state.dag()->analysis(stage);
  return a.needs_multi_level_tiling && a.constant_index_axes.empty();
}

bool IsCacheWriteStage(const State& state, int stage) {
  return stage + 1 < state.num_stages() &&
         state.stage(stage).op->name == state.stage(stage + 1).op->name + ".local";
}

bool HasCacheWriteStage(const State& state, int stage) {
  return stage > 0 && IsCacheWriteStage(state, stage - 1);
}

bool IsCacheReadStage(const State& state, int stage) {
  return stage > 0 && state.stage(stage).op->name == state.stage(stage - 1).op->name + ".local" &&
         state.dag()->ReadsElementwise(stage, stage - 1);
}

bool ReadsCacheReadStage(const State& state, int stage) {
  for (int p : state.dag()->analysis(stage).producers)
    if (IsCacheReadStage(state, p)) return true;
  return false;
}

bool IsConstantCopy(const State& state, int stage) {
  if (!IsCacheReadStage(state, stage)) return false;
  const te::Tensor& source = state.stage(stage - 1).op;
  return source->is_placeholder() ? source->constant : IsPrecomputedConstant(state, stage - 1);
}

namespace {

bool DependsOnConstantsOnly(const State& state, int stage) {
  const schedule::Stage& st = state.stage(stage);
  if (st.is_placeholder()) return st.op->constant;
  for (int p : state.dag()->analysis(stage).producers)
    if (!DependsOnConstantsOnly(state, p)) return false;
  return true;
}

bool IsConstantInput(const State& state, const te::TensorNode* tensor) {
  if (tensor->is_placeholder()) return tensor->constant;
  int s = state.dag()->IndexOf(tensor);
  return s >= 0 && IsConstantCopy(state, s);
}

}  // namespace

bool IsPrecomputedConstant(const State& state, int stage) {
  const te::OpAnalysis& a = state.dag()->analysis(stage);
  // A constant matrix (no producers) is inlined where it is read.
  if (a.is_placeholder || a.is_output || a.producers.empty() || IsCacheReadStage(state, stage)) return false;
  return DependsOnConstantsOnly(state, stage);
}

std::vector<int> WeightVectorAxes(const State& state, int stage) {
  const te::Tensor& op = state.stage(stage).op;
  if (!op->reduce() || op->axes.size() < 2) return {};
  const te::VarNode* last = op->axes.back().var.get();
  std::vector<bool> weight_varies(op->axes.size(), false), other_varies(op->axes.size(), false);
  te::PostOrderVisit(op->body, [&](const te::Expr& e) {
    const auto* read = e.as<te::TensorRead>();
    if (!read) return;
    bool weight = IsConstantInput(state, read->tensor.get());
    bool along_last = false;
    for (const te::Expr& i : read->indices) along_last = along_last || te::UsesVar(i, last);
    for (size_t a = 0; a + 1 < op->axes.size(); ++a) {
      bool varies = false;
      for (const te::Expr& i : read->indices) varies = varies || te::UsesVar(i, op->axes[a].var.get());
      if (!varies) continue;
      if (weight && !along_last)
        weight_varies[a] = true;
      else
        other_varies[a] = true;
    }
  });
  std::vector<int> out;
  for (size_t a = 0; a + 1 < op->axes.size(); ++a)
    if (weight_varies[a] && !other_varies[a] && op->axes[a].extent > 1) out.push_back(static_cast<int>(a));
  return out;
}

bool IsConstantIndexAxis(const te::OpAnalysis& a, int axis) {
  return std::find(a.constant_index_axes.begin(), a.constant_index_axes.end(), axis) != a.constant_index_axes.end();
}

bool IsConstantMatrixTransform(const State& state, int stage) {
  const te::OpAnalysis& a = state.dag()->analysis(stage);
  if (a.is_placeholder || a.constant_index_axes.empty() || !IsUntouchedComputeStage(state, stage)) return false;
  const schedule::Stage& st = state.stage(stage);
  for (int i = st.num_spatial_axes(); i < static_cast<int>(st.iters.size()); ++i)
    if (!IsConstantIndexAxis(a, i)) return false;
  return true;
}

bool IsUntouchedComputeStage(const State& state, int stage) {
  return !state.stage(stage).is_placeholder() && !IsInlined(state, stage) && !IsTransformed(state, stage) &&
         !IsCacheWriteStage(state, stage) && !HasCacheWriteStage(state, stage);
}

bool RowsShorterThanAVector(const State& state, int stage, int vector_lanes) {
  const std::vector<te::IterVar>& axes = state.stage(stage).op->axes;
  return axes.empty() || axes.back().extent < vector_lanes;
}

int64_t SpatialSize(const State& state, int stage) {
  int64_t n = 1;
  for (const te::IterVar& a : state.stage(stage).op->axes) n *= a.extent;
  return n;
}

int64_t ReductionSize(const State& state, int stage) {
  const te::Reduce* red = state.stage(stage).op->reduce();
  if (!red) return 1;
  int64_t n = 1;
  for (const te::IterVar& a : red->axes) n *= a.extent;
  return n;
}

bool IsTransformed(const State& state, int stage) {
  return !schedule::LoopTransforms(state.stage(stage)).empty();
}

}  // namespace tuneforge::search
