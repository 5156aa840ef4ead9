// Whether a stage's loops were changed from the op's own nest. Steps that
// need untouched loops (cache_write) and the search's rules (a transformed
// stage was scheduled already) ask the same question here.
#pragma once

#include <string>

#include "common/schedule/state.h"

namespace tuneforge::schedule {

// What was done to the stage's loops ("split or fused", "reordered",
// "annotated", "given an auto-unroll pragma"), or "" when nothing.
std::string LoopTransforms(const Stage& stage);

}  // namespace tuneforge::schedule
