// compute_at, compute_root, compute_inline: where a stage is computed. Each
// sets the new location on the state being edited, then checks every
// placement, because moving one stage can strand another (a stage placed
// next to its consumer must move along with it).
#include "common/schedule/steps/apply_step.h"
#include "common/schedule/steps/placement.h"

namespace tuneforge::schedule {
namespace {

absl::Status SetLocation(const StepContext& ctx, int stage, ComputeLocation location) {
  ctx.state->mutable_stages()[stage].location = location;
  if (absl::Status s = CheckPlacement(*ctx.state, stage); !s.ok()) return ctx.Error(s.message());
  if (absl::Status s = CheckAllPlacements(*ctx.state); !s.ok())
    return ctx.Error(s.message(), " (after moving ", StageLabel(*ctx.state, stage), ")");
  return absl::OkStatus();
}

// Stages placed in a loop of `stage`, or -1.
int FirstAttachedTo(const State& state, int stage) {
  for (int s = 0; s < state.num_stages(); ++s)
    if (const auto* at = std::get_if<ComputeAtIter>(&state.stage(s).location);
        at && at->target_stage == stage)
      return s;
  return -1;
}

}  // namespace

absl::Status ApplyStep(const ComputeAtStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckComputeStage(step.stage); !s.ok()) return s;
  if (absl::Status s = ctx.CheckIter(step.target_stage, step.target_iter); !s.ok()) return s;
  const State& state = *ctx.state;
  if (step.target_stage == step.stage)
    return ctx.Error("stage ", StageLabel(state, step.stage),
                     " cannot be computed inside its own loop; name a consumer as target_stage");
  if (state.dag()->analysis(step.stage).is_output)
    return ctx.Error("stage ", StageLabel(state, step.stage),
                     " is an output of the program; outputs are computed at root");
  const int node = state.stage(step.target_stage).iters[step.target_iter].node;
  return SetLocation(ctx, step.stage, ComputeAtIter{step.target_stage, node});
}

absl::Status ApplyStep(const ComputeRootStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckComputeStage(step.stage); !s.ok()) return s;
  return SetLocation(ctx, step.stage, ComputeRoot{});
}

absl::Status ApplyStep(const ComputeInlineStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckComputeStage(step.stage); !s.ok()) return s;
  const State& state = *ctx.state;
  const std::string name = StageLabel(state, step.stage);
  if (state.stage(step.stage).op->reduce())
    return ctx.Error("stage ", name,
                     " is a reduction; only stages without reduction can be inlined");
  if (state.dag()->analysis(step.stage).is_output)
    return ctx.Error("stage ", name,
                     " is an output of the program; outputs must be computed, not inlined");
  if (int attached = FirstAttachedTo(state, step.stage); attached >= 0)
    return ctx.Error("stage ", StageLabel(state, attached), " is computed inside a loop of ", name,
                     ", which would disappear; compute_root it first");
  return SetLocation(ctx, step.stage, ComputeInlined{});
}

}  // namespace tuneforge::schedule
