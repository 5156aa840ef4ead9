#include "common/schedule/loop_transforms.h"

namespace tuneforge::schedule {

std::string LoopTransforms(const Stage& stage) {
  if (!stage.relations.empty()) return "split or fused";
  for (size_t i = 0; i < stage.iters.size(); ++i) {
    if (stage.iters[i].node != static_cast<int>(i)) return "reordered";
    if (stage.iters[i].annotation != IterAnnotation::kNone) return "annotated";
  }
  if (stage.auto_unroll_max_step != 0) return "given an auto-unroll pragma";
  return "";
}

}  // namespace tuneforge::schedule
