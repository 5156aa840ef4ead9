// Add rfactor: a reduction with little spatial parallelism (a dot product, a
// row sum over a few rows, a matmul with M*N small and K large) gets its
// reduction loops fused, split in two, and one of the two parts factored
// into a new stage of partial results that can run in parallel and in
// vectors. Both choices of part are derived; the unfactored stage goes on to
// the other rules (kApply).
#include "search/sketch_rules/sketch_rules.h"
#include "search/sketch_rules/stage_queries.h"
#include "search/sketch_rules/tiling.h"

namespace tuneforge::search {
namespace {

bool NeedsRfactor(const schedule::State& state, int stage, const HardwareParams& hw) {
  const int64_t space = SpatialSize(state, stage), reduce = ReductionSize(state, stage);
  if (reduce <= 1) return false;
  if (NeedsMultiLevelTiling(state, stage))  // tiling wins while the spatial loops keep the cores busy
    return space <= reduce && space <= hw.num_cores * hw.parallel_iters_per_core;
  return reduce > hw.num_cores;
}

class AddRfactorRule : public SketchRule {
 public:
  const char* name() const override { return "add_rfactor"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams& hw) const override {
    if (!IsUntouchedComputeStage(state, stage) || !NeedsRfactor(state, stage, hw))
      return RuleDecision::kSkip;
    return RuleDecision::kApply;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    const int ns = state.stage(stage).num_spatial_axes();
    schedule::State base = state;
    if (!FuseAndSplitReduction(&base, stage).ok()) return {};
    std::vector<DerivedState> out;
    for (int part : {ns + 1, ns}) {  // factor the inner part (vectorizable), or the outer
      schedule::State next = base;
      if (!next.Apply(schedule::RfactorStep{stage, part, ns}).ok()) continue;
      out.push_back(DerivedState{std::move(next), stage - 1,  // skip both new stages
                                 part == ns + 1 ? "inner part factored" : "outer part factored"});
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<SketchRule> MakeAddRfactorRule() { return std::make_unique<AddRfactorRule>(); }

}  // namespace tuneforge::search
