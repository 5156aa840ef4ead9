// Auto-unroll: stages with a tiled or reducing loop nest get an
// auto_unroll_max_step pragma (small nests below it are fully unrolled).
// The pragma is added even with value 0 so that mutation can change it.
#include "search/annotation/annotation.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {

void AnnotateAutoUnroll(schedule::State* state, const HardwareParams& hw, Rng& rng) {
  if (hw.auto_unroll_configs.empty()) return;
  for (int s = 0; s < state->num_stages(); ++s) {
    const schedule::Stage& st = state->stage(s);
    if (st.is_placeholder() || IsInlined(*state, s) || st.iters.empty()) continue;
    if (!hw.gpu && IsPrecomputedConstant(*state, s)) continue;  // computed once, by the layout rewrite
    if (!IsTransformed(*state, s) && !st.op->reduce()) continue;
    const auto& configs = hw.auto_unroll_configs;
    int64_t value = configs[std::uniform_int_distribution<size_t>(0, configs.size() - 1)(rng)];
    (void)state->Apply(schedule::PragmaStep{s, 0, value});
  }
}

}  // namespace tuneforge::search
