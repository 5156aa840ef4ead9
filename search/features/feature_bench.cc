#include "search/features/feature_bench.h"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "common/te/workload.h"
#include "search/features/features.h"

namespace tuneforge::search {

schedule::State FeatureBenchState() {
  using namespace schedule;  // NOLINT: the step names read better bare
  absl::StatusOr<te::Workload> w = te::ParseWorkload("matmul:M=1024,N=1024,K=1024");
  // Stages after the cache_write: 0 A, 1 B, 2 C.local, 3 C.
  const std::vector<Step> steps = {
      CacheWriteStep{2, "local"},
      SplitStep{2, 0, {8, 4, 2}, true},   // i -> i.0 i.1 i.2 i.3
      SplitStep{2, 4, {4, 8, 16}, true},  // j -> j.0 j.1 j.2 j.3
      SplitStep{2, 8, {8}, true},         // k -> k.0 k.1
      ReorderStep{2, {0, 4, 1, 5, 8, 2, 6, 9, 3, 7}},  // SSRSRS
      SplitStep{3, 0, {64}, true},        // C: i.0 i.1 j
      SplitStep{3, 2, {512}, true},       // C: i.0 i.1 j.0 j.1
      ReorderStep{3, {0, 2, 1, 3}},       // i.0 j.0 i.1 j.1
      ComputeAtStep{2, 3, 1},             // C.local inside j.0
      FuseStep{3, {0, 1}},                // i.0@j.0 i.1 j.1
      AnnotationStep{3, 0, IterAnnotation::kParallel},
      AnnotationStep{3, 2, IterAnnotation::kVectorize},
      AnnotationStep{2, 9, IterAnnotation::kVectorize},
      PragmaStep{2, 0, 64},
  };
  absl::StatusOr<State> s = w.ok() ? State::Replay(w->dag, steps) : w.status();
  if (!s.ok()) {
    // A broken benchmark state is a bug in this file, not a user error.
    std::cerr << "FeatureBenchState: " << s.status() << "\n";
    std::abort();
  }
  return *s;
}

double MeasureFeatureExtractionSeconds(int states) {
  const schedule::State state = FeatureBenchState();
  states = states < 1 ? 1 : states;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < states; ++i) {
    absl::StatusOr<ProgramFeatures> f = ExtractFeatures(state);
    if (!f.ok() || f->num_stores == 0) std::abort();
  }
  std::chrono::duration<double> total = std::chrono::steady_clock::now() - start;
  return total.count() / states;
}

}  // namespace tuneforge::search
