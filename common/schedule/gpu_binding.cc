#include "common/schedule/gpu_binding.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tuneforge::schedule {

absl::Status BindSpatialLoopsToThreads(State* state, int stage, int64_t threads_per_block) {
  const Stage& st = state->stage(stage);
  int outer = 0;  // leading spatial, unannotated loops
  while (outer < static_cast<int>(st.iters.size()) && st.iter_node(outer).kind == IterKind::kSpatial &&
         st.iters[outer].annotation == IterAnnotation::kNone)
    ++outer;
  if (outer == 0)
    return absl::UnimplementedError(absl::StrCat("stage '", st.op->name,
                                                 "' has no spatial loop to bind to GPU threads (a full "
                                                 "reduction needs a cross-thread reduction)"));
  if (outer > 1) {
    std::vector<int> iters(outer);
    std::iota(iters.begin(), iters.end(), 0);
    if (absl::Status s = state->Apply(FuseStep{stage, iters}); !s.ok()) return s;
  }
  const int64_t outputs = state->stage(stage).iter_node(0).extent;
  const int64_t threads = std::min(outputs, threads_per_block);
  if (absl::Status s = state->Apply(SplitStep{stage, 0, {threads}, true}); !s.ok()) return s;
  if (absl::Status s = state->Apply(AnnotationStep{stage, 0, IterAnnotation::kBlockX}); !s.ok()) return s;
  return state->Apply(AnnotationStep{stage, 1, IterAnnotation::kThreadX});
}

absl::StatusOr<State> BindNaiveForGpu(const State& naive, int64_t threads_per_block) {
  State s = naive;
  for (int i = 0; i < s.num_stages(); ++i) {
    const te::OpAnalysis& a = s.dag()->analysis(i);
    if (!a.is_placeholder && !a.is_output && a.is_strictly_inlinable)
      if (absl::Status st = s.Apply(ComputeInlineStep{i}); !st.ok()) return st;
  }
  for (int i = 0; i < s.num_stages(); ++i) {
    const Stage& st = s.stage(i);
    if (st.is_placeholder() || !std::holds_alternative<ComputeRoot>(st.location)) continue;
    if (absl::Status b = BindSpatialLoopsToThreads(&s, i, threads_per_block); !b.ok()) return b;
  }
  return s;
}

}  // namespace tuneforge::schedule
