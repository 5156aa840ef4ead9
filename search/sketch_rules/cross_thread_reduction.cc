// Cross-thread reduction (GPU): a reduction with few outputs and a long
// reduction (a row sum, softmax's row maxima, a matrix-vector product) gets
// a block per output and the block's threads share the reduction: its loops
// are fused and split, the inner part (the threads, sized by annotation) is
// factored into a stage of partial results kept in shared memory, bound to
// threadIdx.x, and the outputs sum the partials. The stage without it is
// derived as well (kApply), as Ansor does.
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"
#include "search/sketch_rules/tiling.h"

namespace tuneforge::search {
namespace {

constexpr int64_t kWarpSize = 32;

bool WantsCrossThreadReduction(const schedule::State& state, int stage, const HardwareParams& hw) {
  const int64_t space = SpatialSize(state, stage), reduce = ReductionSize(state, stage);
  if (reduce <= 1 || state.stage(stage).num_spatial_axes() == 0) return false;
  // Tiling wins while the outputs alone fill a block's threads.
  if (NeedsMultiLevelTiling(state, stage)) return space <= hw.max_threads_per_block && space < reduce;
  return reduce > kWarpSize;
}

class CrossThreadReductionRule : public SketchRule {
 public:
  const char* name() const override { return "cross_thread_reduction"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams& hw) const override {
    if (!IsUntouchedComputeStage(state, stage) || !WantsCrossThreadReduction(state, stage, hw))
      return RuleDecision::kSkip;
    return RuleDecision::kApply;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    const int ns = state.stage(stage).num_spatial_axes();
    schedule::State next = state;
    // reduce -> reduce.0 (each thread's serial part), reduce.1 (the threads)
    if (!FuseAndSplitReduction(&next, stage).ok()) return {};
    if (!next.Apply(schedule::RfactorStep{stage, ns + 1, ns}).ok()) return {};
    const int partials = stage, outputs = stage + 1;
    if (!FuseLoops(&next, outputs, 0, ns).ok()) return {};
    if (!next.Apply(schedule::AnnotationStep{outputs, 0, schedule::IterAnnotation::kBlockX}).ok()) return {};
    if (!next.Apply(schedule::ComputeAtStep{partials, outputs, 0}).ok()) return {};
    // The partials' loops: the spatial axes (one output here), the threads'
    // axis, the serial reduction.
    if (!next.Apply(schedule::AnnotationStep{partials, ns, schedule::IterAnnotation::kThreadX}).ok()) return {};
    return {DerivedState{std::move(next), stage - 1, ""}};
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeCrossThreadReductionRule() {
  return std::make_unique<CrossThreadReductionRule>();
}

}  // namespace tuneforge::search
