#include "common/lower/lower_context.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/lower/hoist_constants.h"
#include "common/lower/local_layout.h"
#include "common/schedule/effective_body.h"
#include "common/te/expr_util.h"
#include "common/te/tensor.h"

namespace tuneforge::lower {
namespace {

using schedule::Stage;

// Loop variables named after their iterators, made unique across stages so
// the printed program is unambiguous ("i.0", then "i.0_1", ...).
schedule::LoopVars UniqueLoopVars(const schedule::State& state) {
  schedule::LoopVars vars(state.num_stages());
  absl::flat_hash_map<std::string, int> used;
  for (int s = 0; s < state.num_stages(); ++s) {
    const Stage& stage = state.stage(s);
    for (const schedule::IterNode& node : stage.nodes) {
      int n = used[node.name]++;
      vars[s].push_back(te::MakeVar(n == 0 ? node.name : absl::StrCat(node.name, "_", n)));
    }
  }
  return vars;
}

absl::Status CheckAnnotations(const schedule::State& state, const LowerOptions& options) {
  for (int s = 0; s < state.num_stages(); ++s) {
    const Stage& stage = state.stage(s);
    for (size_t i = 0; i < stage.iters.size(); ++i) {
      schedule::IterAnnotation a = stage.iters[i].annotation;
      if (options.gpu && a == schedule::IterAnnotation::kParallel)
        return absl::InvalidArgumentError(absl::StrCat(
            "stage '", stage.op->name, "' loop ", i, " ('", stage.iter_node(i).name,
            "') is parallel (CPU threads); on a GPU bind it to blockIdx/threadIdx instead"));
      if (!options.gpu && schedule::IsGpuBinding(a) && a != schedule::IterAnnotation::kVThread)
        return absl::InvalidArgumentError(absl::StrCat(
            "stage '", stage.op->name, "' iterator ", i, " ('", stage.iter_node(i).name,
            "') is bound to ", schedule::AnnotationName(a),
            ", which only a GPU target can run; remove the binding or target a GPU"));
    }
  }
  return absl::OkStatus();
}

// Strides of an intermediate buffer with storage_align applied: the stride
// of an aligned dimension is padded up to k * factor + offset.
std::vector<int64_t> AlignedStrides(const std::vector<int64_t>& shape,
                                    const std::vector<schedule::StorageAlign>& aligns) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (d + 1 < static_cast<int>(shape.size())) strides[d] = strides[d + 1] * shape[d + 1];
    for (const schedule::StorageAlign& a : aligns) {
      if (a.axis != d || a.factor <= 0) continue;
      int64_t r = ((strides[d] - a.offset) % a.factor + a.factor) % a.factor;
      if (r != 0) strides[d] += a.factor - r;
    }
  }
  return strides;
}

}  // namespace

absl::StatusOr<LowerContext> MakeLowerContext(const schedule::State& state,
                                              const LowerOptions& options) {
  absl::Status ok = CheckAnnotations(state, options);
  if (!ok.ok()) return ok;
  LowerContext ctx;
  ctx.state = &state;
  ctx.options = options;
  ctx.vars = UniqueLoopVars(state);
  absl::StatusOr<std::vector<schedule::Region>> regions = schedule::InferRegions(state, ctx.vars);
  if (!regions.ok()) return regions.status();
  ctx.regions = *std::move(regions);
  ctx.bodies = options.constant_matrices_as_one ? schedule::EffectiveBodiesWithUnitMatrices(state)
                                                : schedule::EffectiveStagesOf(state)->bodies;

  const te::ComputeDag& dag = *state.dag();
  int n = state.num_stages();
  ctx.buffers.resize(n);
  ctx.dim_order.resize(n);
  ctx.is_argument.assign(n, false);
  for (int s : dag.ArgumentOps()) ctx.is_argument[s] = true;
  for (int s = 0; s < n; ++s) {
    const Stage& stage = state.stage(s);
    if (schedule::IsInlined(stage)) continue;
    auto buf = std::make_shared<te::BufferNode>();
    buf->name = stage.op->name;
    buf->dtype = stage.op->dtype;
    if (ctx.is_argument[s]) {
      buf->shape = stage.op->shape;  // arguments are dense and whole
    } else {
      ctx.dim_order[s] = LocalDimOrder(ctx, s);
      buf->shape = ctx.StoredExtents(s);
      buf->scope = stage.scope;
      if (!stage.storage_align.empty()) buf->strides = AlignedStrides(buf->shape, stage.storage_align);
    }
    ctx.buffers[s] = buf;
    if (stage.is_placeholder()) continue;
    if (const auto* at = std::get_if<schedule::ComputeAtIter>(&stage.location)) {
      ctx.attached[{at->target_stage, at->target_node}].push_back(s);
    } else {
      ctx.root_stages.push_back(s);
    }
  }
  for (int s : dag.ArgumentOps()) ctx.arguments.push_back(ctx.buffers[s]);
  HoistConstantStages(&ctx);
  return ctx;
}

bool LowerContext::ReadsOnlyConstants(int s, const std::function<bool(int producer)>& constant_stage) const {
  bool only = true;
  te::PostOrderVisit(bodies[s], [&](const te::Expr& e) {
    const auto* read = e.as<te::TensorRead>();
    if (!read || !only) return;
    if (read->tensor->is_placeholder()) {
      only = read->tensor->constant;
      return;
    }
    const int producer = state->dag()->IndexOf(read->tensor.get());
    only = producer >= 0 && constant_stage(producer);
  });
  return only;
}

}  // namespace tuneforge::lower
