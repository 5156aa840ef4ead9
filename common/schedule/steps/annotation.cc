// annotation (parallel, vectorize, unroll, vthread, GPU bindings) and the
// auto-unroll pragma: both mark loops without changing the loop structure.
#include "common/schedule/steps/apply_step.h"

namespace tuneforge::schedule {
namespace {

bool IsBlockBinding(IterAnnotation a) {
  return a == IterAnnotation::kBlockX || a == IterAnnotation::kBlockY ||
         a == IterAnnotation::kBlockZ;
}

}  // namespace

absl::Status ApplyStep(const AnnotationStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckIter(step.stage, step.iter); !s.ok()) return s;
  const Stage& stage = ctx.stage(step.stage);
  const IterAnnotation current = stage.iters[step.iter].annotation;
  const char* wanted = AnnotationName(step.annotation);
  if (current == step.annotation) return absl::OkStatus();  // already so: nothing to do
  if (current != IterAnnotation::kNone)
    return ctx.Error(IterLabel(stage, step.iter), " of stage ", StageLabel(*ctx.state, step.stage),
                     " is already annotated '", AnnotationName(current), "'; it cannot also be '",
                     wanted, "'");
  // Iterations of a reduction loop update the same element: running them on
  // different threads or blocks would race. (Vectorized or unrolled
  // reductions are fine; lowering decides how.)
  if (stage.iter_node(step.iter).kind == IterKind::kReduce &&
      (step.annotation == IterAnnotation::kParallel || IsBlockBinding(step.annotation)))
    return ctx.Error(IterLabel(stage, step.iter), " of stage ", StageLabel(*ctx.state, step.stage),
                     " is a reduction loop; '", wanted,
                     "' would make its iterations race on the same output (use rfactor to "
                     "make a spatial loop of it first)");
  // A thread or block index can number only one loop of a stage.
  if (IsGpuBinding(step.annotation) && step.annotation != IterAnnotation::kVThread)
    for (int i = 0; i < static_cast<int>(stage.iters.size()); ++i)
      if (stage.iters[i].annotation == step.annotation)
        return ctx.Error(IterLabel(stage, i), " of stage ", StageLabel(*ctx.state, step.stage),
                         " is already bound to ", wanted, "; bind each GPU index to one loop");
  ctx.state->mutable_stages()[step.stage].iters[step.iter].annotation = step.annotation;
  return absl::OkStatus();
}

absl::Status ApplyStep(const PragmaStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckIter(step.stage, step.iter); !s.ok()) return s;
  if (step.auto_unroll_max_step < 0)
    return ctx.Error("auto_unroll_max_step ", step.auto_unroll_max_step,
                     " must be >= 0 (0 turns auto-unrolling off)");
  ctx.state->mutable_stages()[step.stage].auto_unroll_max_step = step.auto_unroll_max_step;
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
