// Loop facts the annotation rules and mutations share.
#include "search/annotation/annotation.h"

namespace tuneforge::search {

bool HasAttachedStages(const schedule::State& state, int stage, int iter) {
  const int node = state.stage(stage).iters[iter].node;
  for (const schedule::Stage& other : state.stages())
    if (const auto* at = std::get_if<schedule::ComputeAtIter>(&other.location);
        at && at->target_stage == stage && at->target_node == node)
      return true;
  return false;
}

int MaxParallelFuse(const schedule::State& state, int stage) {
  const schedule::Stage& st = state.stage(stage);
  int count = 0;
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i) {
    if (st.iter_node(i).kind != schedule::IterKind::kSpatial ||
        st.iters[i].annotation != schedule::IterAnnotation::kNone)
      break;
    ++count;
    if (HasAttachedStages(state, stage, i)) break;
  }
  return count;
}

}  // namespace tuneforge::search
