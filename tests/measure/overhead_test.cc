// How much time measuring one candidate adds beyond its own timed runs:
// loading the object, the check run and comparison, the pipe round trip.
// Printed, not asserted (machines differ); the target is <= 100 ms.
#include <algorithm>
#include <cstdio>

#include "gtest/gtest.h"
#include "tests/measure/hand_kernels.h"
#include "measure/measurer.h"

namespace tuneforge::measure {
namespace {

TEST(MeasureOverheadTest, PerCandidateOverheadIsPrinted) {
  testing::ElementwiseWorkload w;
  BuiltKernel k = w.Build(w.Correct());
  MeasureOptions options;
  options.number = 1;
  options.repeat = 1;
  options.min_repeat_ms = 0;
  auto m = Measurer::Create(codegen::Target::Host(), options);
  ASSERT_TRUE(m.ok()) << m.status();
  constexpr int kCandidates = 20;
  std::vector<BuiltKernel> candidates(kCandidates, k);
  std::vector<MeasureResult> results = (*m)->MeasureBuilt(*w.dag(), k, candidates);
  std::vector<double> overheads;
  for (int i = 0; i < kCandidates; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].error;
    // The first includes starting the runner and computing the reference.
    if (i > 0) overheads.push_back(results[i].run_wall_ms - results[i].timed_ms);
  }
  std::sort(overheads.begin(), overheads.end());
  double mean = 0;
  for (double o : overheads) mean += o;
  mean /= static_cast<double>(overheads.size());
  std::printf("[ overhead ] first candidate (runner start + reference): %.2f ms\n",
              results[0].run_wall_ms);
  std::printf(
      "[ overhead ] per candidate after that: mean %.2f ms, median %.2f ms, max %.2f ms "
      "(target <= 100 ms); build %.2f ms\n",
      mean, overheads[overheads.size() / 2], overheads.back(), k.build_ms);
  // Sanity, far from the target: a regression to seconds would show here.
  EXPECT_LT(overheads[overheads.size() / 2], 1000);
}

}  // namespace
}  // namespace tuneforge::measure
