// The naive program bound to a GPU: what `tuneforge show --target cuda`
// prints before the GPU search has run (and what a GPU runs when nothing was
// tuned). Inlining leaves one kernel per root stage; one is supported here.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "search/annotation/annotation.h"
#include "search/sketch_rules/stage_queries.h"

namespace tuneforge::search {

absl::StatusOr<schedule::State> BindNaiveForGpu(const schedule::State& naive, int64_t max_threads) {
  schedule::State s = naive;
  for (int i = 0; i < s.num_stages(); ++i) {
    const te::OpAnalysis& a = s.dag()->analysis(i);
    if (!a.is_placeholder && !a.is_output && a.is_strictly_inlinable)
      if (absl::Status st = s.Apply(schedule::ComputeInlineStep{i}); !st.ok()) return st;
  }
  std::vector<int> roots;
  std::vector<std::string> names;
  for (int i = 0; i < s.num_stages(); ++i)
    if (!s.stage(i).is_placeholder() && !IsInlined(s, i)) {
      roots.push_back(i);
      names.push_back(s.stage(i).op->name);
    }
  if (roots.size() != 1)
    return absl::UnimplementedError(absl::StrCat(
        "the program needs ", roots.size(), " GPU kernels (stages ", absl::StrJoin(names, ", "),
        ") and one kernel per program is generated; give a schedule that computes the others inside the last"));
  int stage = roots[0];
  int spatial = s.stage(stage).num_spatial_axes();
  std::vector<int> axes;
  for (int i = 0; i < spatial; ++i) axes.push_back(i);
  if (spatial > 1)
    if (absl::Status st = s.Apply(schedule::FuseStep{stage, axes}); !st.ok()) return st;
  int64_t outputs = s.stage(stage).iter_node(0).extent;
  int64_t threads = std::min<int64_t>(outputs, max_threads);
  if (absl::Status st = s.Apply(schedule::SplitStep{stage, 0, {threads}, true}); !st.ok()) return st;
  if (absl::Status st = s.Apply(schedule::AnnotationStep{stage, 0, schedule::IterAnnotation::kBlockX}); !st.ok())
    return st;
  if (absl::Status st = s.Apply(schedule::AnnotationStep{stage, 1, schedule::IterAnnotation::kThreadX}); !st.ok())
    return st;
  return s;
}

}  // namespace tuneforge::search
