// Parallel: the outer spatial loops of each stage computed at root are fused
// until they offer hw.parallel_iters_per_core iterations per core (or reach a
// loop with stages computed inside), and the fused loop runs on all cores.
#include "search/annotation/annotation.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {

void AnnotateParallel(schedule::State* state, const HardwareParams& hw) {
  const int64_t enough = static_cast<int64_t>(hw.num_cores) * hw.parallel_iters_per_core;
  for (int s = 0; s < state->num_stages(); ++s) {
    const schedule::Stage& st = state->stage(s);
    if (st.is_placeholder() || !std::holds_alternative<schedule::ComputeRoot>(st.location) ||
        IsPrecomputedConstant(*state, s))
      continue;
    const int max_fuse = MaxParallelFuse(*state, s);
    int take = 0;
    int64_t product = 1;
    while (take < max_fuse && product < enough) product *= st.iter_node(take++).extent;
    if (take == 0 || product <= 1) continue;
    std::vector<int> iters;
    for (int i = 0; i < take; ++i) iters.push_back(i);
    schedule::State next = *state;
    if (!next.Apply(schedule::FuseStep{s, iters}).ok()) continue;
    if (!next.Apply(schedule::AnnotationStep{s, 0, schedule::IterAnnotation::kParallel}).ok()) continue;
    *state = std::move(next);
  }
}

}  // namespace tuneforge::search
