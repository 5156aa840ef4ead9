// Thread binding (GPU annotation): every kernel's loops go onto blocks and
// threads. A stage tiled for the GPU (SSSRRSRS, its producer computed at the
// thread level) has its first three levels fused per level and bound to
// blockIdx.x, vthread and threadIdx.x; any other root stage (element-wise,
// pooling) has its spatial loops fused and split into blocks of
// hw.default_threads_per_block threads. Stages computed inside others run in
// their threads; stages their sketch rule bound (shared copies, cross-thread
// reductions) keep those bindings.
#include "common/schedule/gpu_binding.h"
#include "search/annotation/annotation.h"
#include "search/sketch_rules/stage_queries.h"
#include "search/sketch_rules/tiling.h"

namespace tuneforge::search {
namespace {

using schedule::IterAnnotation;
using schedule::State;

// A stage tiled for the GPU and fused: its first 3 * ns loops are spatial
// levels and a producer is computed inside the last of them.
bool HasGpuTileLevels(const State& state, int stage) {
  const schedule::Stage& st = state.stage(stage);
  const int ns = st.num_spatial_axes();
  if (ns == 0 || static_cast<int>(st.iters.size()) < 3 * ns) return false;
  for (int i = 0; i < 3 * ns; ++i)
    if (st.iter_node(i).kind != schedule::IterKind::kSpatial || st.iters[i].annotation != IterAnnotation::kNone)
      return false;
  return HasAttachedStages(state, stage, 3 * ns - 1);
}

absl::Status FuseAndBind(State* state, int stage, int first, int count, IterAnnotation a) {
  if (absl::Status s = FuseLoops(state, stage, first, count); !s.ok()) return s;
  return state->Apply(schedule::AnnotationStep{stage, first, a});
}

absl::Status BindStage(State* state, int stage, const HardwareParams& hw) {
  const schedule::Stage& st = state->stage(stage);
  const int ns = st.num_spatial_axes();
  if (HasGpuTileLevels(*state, stage)) {
    if (absl::Status s = FuseAndBind(state, stage, 0, ns, IterAnnotation::kBlockX); !s.ok()) return s;
    if (absl::Status s = FuseAndBind(state, stage, 1, ns, IterAnnotation::kVThread); !s.ok()) return s;
    return FuseAndBind(state, stage, 2, ns, IterAnnotation::kThreadX);
  }
  return schedule::BindSpatialLoopsToThreads(state, stage, hw.default_threads_per_block);
}

}  // namespace

absl::Status BindGpuThreads(State* state, const HardwareParams& hw) {
  for (int s = 0; s < state->num_stages(); ++s) {
    const schedule::Stage& st = state->stage(s);
    if (st.is_placeholder() || !std::holds_alternative<schedule::ComputeRoot>(st.location)) continue;
    bool bound = false;  // by its sketch rule (cross-thread reduction)
    for (const schedule::Iterator& it : st.iters) bound = bound || schedule::IsGpuBinding(it.annotation);
    if (bound) continue;
    if (absl::Status b = BindStage(state, s, hw); !b.ok()) return b;
  }
  return absl::OkStatus();
}

bool WithinGpuLimits(const State& state, const HardwareParams& hw) {
  int64_t shared_bytes = 0;
  for (const schedule::Stage& st : state.stages()) {
    if (st.scope == "shared") {
      int64_t elements = 1;
      for (const schedule::Iterator& it : st.iters) elements *= st.nodes[it.node].extent;
      shared_bytes += elements * st.op->dtype.bytes();
    }
    if (st.scope == "local") {  // a thread's accumulators: registers
      int64_t elements = 1;
      for (const schedule::Iterator& it : st.iters)
        if (st.nodes[it.node].kind == schedule::IterKind::kSpatial) elements *= st.nodes[it.node].extent;
      if (elements > hw.max_local_tile) return false;
    }
    for (const schedule::Iterator& it : st.iters) {
      const int64_t extent = st.nodes[it.node].extent;
      if (it.annotation == IterAnnotation::kThreadX && extent > hw.max_threads_per_block) return false;
      if (it.annotation == IterAnnotation::kVThread && extent > hw.max_vthread_extent) return false;
    }
  }
  return shared_bytes <= hw.max_shared_bytes;
}

}  // namespace tuneforge::search
