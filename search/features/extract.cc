// ExtractFeatures: walk the lowered program once, analyse every store's
// accesses, then fill one row per store group by group.
#include <algorithm>
#include <cmath>

#include "search/features/access_pattern.h"
#include "search/features/feature_table.h"
#include "search/features/features.h"
#include "search/features/op_counter.h"
#include "search/features/program_walk.h"
#include "search/features/store_row.h"

namespace tuneforge::search {
namespace {

using features::StoreInput;

// The auto_unroll_max_step feature of a stage's stores: the largest along
// the chain of compute_at targets, so a local tile's rows also carry its
// output's pragma (which copies the write-back around it). Lowering applies
// the nearest one (passes/build_loop_nest.cc); as a feature, the nearest one
// made two 7x7 stem tunings sample programs slower to compile (compile p50
// 65 -> 132 and 123 -> 151 ms; best kernels 0.86 -> 0.88 and 0.83 -> 0.96x
// oneDNN, inside the 0.77-0.96 spread of stem seeds).
int64_t AutoUnrollOf(const schedule::State& state, int stage) {
  int64_t most = 0;
  for (int hops = 0; stage >= 0 && hops <= state.num_stages(); ++hops) {
    const schedule::Stage& s = state.stage(stage);
    most = std::max(most, s.auto_unroll_max_step);
    const auto* at = std::get_if<schedule::ComputeAtIter>(&s.location);
    stage = at ? at->target_stage : -1;
  }
  return most;
}

}  // namespace

lower::LowerOptions FeatureLowerOptions() {
  lower::LowerOptions options;
  // Vectorized and unrolled loops stay loops annotated with their kind:
  // their extents and positions are features, and the passes would only
  // cost time (unrolling multiplies the statements).
  options.vectorize = false;
  options.unroll = false;
  // The kernel's reads of packed weights are features; the packing is not.
  options.prepack = false;
  // Each entry of a transform matrix is one constant multiply in the kernel.
  options.constant_matrices_as_one = true;
  options.name = "features";
  return options;
}

ProgramFeatures ExtractFeatures(const lower::LoweredFunc& func, const schedule::State* state) {
  features::ProgramWalk walk = features::WalkProgram(func.body);
  const int num_stores = static_cast<int>(walk.stores.size());
  std::vector<features::StoreAccesses> accesses;
  accesses.reserve(num_stores);
  for (const features::StoreSite& site : walk.stores) accesses.push_back(features::AnalyzeAccesses(site, walk));

  ProgramFeatures out;
  out.num_stores = num_stores;
  out.num_features = features::kRowWidth;
  out.values.assign(static_cast<size_t>(num_stores) * features::kRowWidth, 0.0f);
  out.store_stage.assign(num_stores, -1);
  std::vector<double> row(features::kRowWidth);
  for (int s = 0; s < num_stores; ++s) {
    std::fill(row.begin(), row.end(), 0.0);
    StoreInput in{walk, accesses, s};
    features::OpCounts ops = features::CountOps(walk.stores[s]);
    features::WriteComputeFeatures(in, ops, row.data());
    features::WriteLoopFeatures(in, row.data());
    features::WriteArithmeticIntensity(in, ops, row.data());
    features::WriteBufferFeatures(in, row.data());
    if (state) {
      // Lowering names each stage's buffer after its op.
      int stage = state->StageIndex(walk.stores[s].store->buffer->name);
      out.store_stage[s] = stage;
      if (stage >= 0) row[features::kF_auto_unroll_max_step] = static_cast<double>(AutoUnrollOf(*state, stage));
    }
    float* dst = out.values.data() + static_cast<size_t>(s) * features::kRowWidth;
    for (int i = 0; i < features::kRowWidth; ++i)
      dst[i] = static_cast<float>(features::TransformOf(i) == features::Transform::kLog
                                      ? std::log2(std::max(row[i], 0.0) + 1.0)
                                      : row[i]);
  }
  return out;
}

namespace {

// A program bound to blocks and threads is lowered as GPU code generation
// lowers it (its loops keep their bindings, which the GPU features read).
bool BindsGpuThreads(const schedule::State& state) {
  for (const schedule::Stage& st : state.stages())
    for (const schedule::Iterator& it : st.iters)
      if (schedule::IsGpuBinding(it.annotation)) return true;
  return false;
}

}  // namespace

absl::StatusOr<ProgramFeatures> ExtractFeatures(const schedule::State& state) {
  lower::LowerOptions options = FeatureLowerOptions();
  options.gpu = BindsGpuThreads(state);
  absl::StatusOr<lower::LoweredFunc> func = lower::Lower(state, options);
  if (!func.ok()) return func.status();
  return ExtractFeatures(*func, &state);
}

}  // namespace tuneforge::search
