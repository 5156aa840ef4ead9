// The naive program bound to a GPU: what `tuneforge show --target cuda`
// prints before the GPU search has run (and what a GPU runs when nothing was
// tuned): every stage that can be is inlined, and each stage left is a kernel
// of its own (gpu_thread_binding.cc).
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
  HardwareParams hw = GpuHardwareParams(max_threads);
  if (absl::Status st = BindGpuThreads(&s, hw); !st.ok()) return st;
  return s;
}

}  // namespace tuneforge::search
