#include "common/schedule/steps/apply_step.h"

namespace tuneforge::schedule {

absl::Status ApplyStep(const StorageAlignStep& step, const StepContext& ctx) {
  if (absl::Status s = ctx.CheckIter(step.stage, step.iter); !s.ok()) return s;
  const Stage& stage = ctx.stage(step.stage);
  // The padding is of an output dimension, so the iterator must still be
  // one of the op's spatial axes (not split, fused or a reduction).
  const int node = stage.iters[step.iter].node;
  if (node >= stage.num_spatial_axes())
    return ctx.Error(IterLabel(stage, step.iter), " of stage ", StageLabel(*ctx.state, step.stage),
                     " is not an untransformed spatial axis; storage_align pads an output "
                     "dimension, so align before splitting or fusing it");
  if (step.factor < 1) return ctx.Error("factor ", step.factor, " must be >= 1");
  if (step.offset < 0 || step.offset >= step.factor)
    return ctx.Error("offset ", step.offset, " must be in 0..", step.factor - 1,
                     " (0 <= offset < factor)");
  std::vector<StorageAlign>& aligns = ctx.state->mutable_stages()[step.stage].storage_align;
  StorageAlign align{node, step.factor, step.offset};
  for (StorageAlign& a : aligns)
    if (a.axis == node) {
      a = align;  // the latest alignment of a dimension wins
      return absl::OkStatus();
    }
  aligns.push_back(align);
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
