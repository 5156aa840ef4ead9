// ExtractFeaturesBatch gives what ExtractFeatures gives one by one, errors
// included; the benchmark state extracts.
#include <gtest/gtest.h>

#include "common/lower/lower.h"
#include "search/features/feature_bench.h"
#include "tests/search/features/feature_test_util.h"

namespace tuneforge::search::testing {
namespace {

using schedule::AnnotationStep;
using schedule::IterAnnotation;
using schedule::SplitStep;

std::vector<schedule::State> SomeStates() {
  return {
      MakeState("matmul:M=4,N=8,K=16"),
      MakeState("matmul:M=4,N=32,K=16", {SplitStep{2, 1, {8}, true},
                                         AnnotationStep{2, 2, IterAnnotation::kVectorize}}),
      MakeState("add:M=8,N=32", {AnnotationStep{2, 0, IterAnnotation::kParallel}}),
      // A GPU binding beside a CPU parallel loop: lowering refuses the mix.
      MakeState("add:M=8,N=32",
                {AnnotationStep{2, 0, IterAnnotation::kParallel}, AnnotationStep{2, 1, IterAnnotation::kThreadX}}),
      FeatureBenchState(),
  };
}

TEST(BatchTest, SameAsOneByOne) {
  std::vector<schedule::State> states = SomeStates();
  for (int threads : {1, 3, 0}) {
    std::vector<absl::StatusOr<ProgramFeatures>> batch = ExtractFeaturesBatch(states, threads);
    ASSERT_EQ(batch.size(), states.size());
    for (size_t i = 0; i < states.size(); ++i) {
      absl::StatusOr<ProgramFeatures> one = ExtractFeatures(states[i]);
      ASSERT_EQ(batch[i].ok(), one.ok()) << "state " << i << " threads " << threads;
      if (!one.ok()) {
        EXPECT_EQ(batch[i].status(), one.status());
        continue;
      }
      EXPECT_EQ(batch[i]->num_stores, one->num_stores);
      EXPECT_EQ(batch[i]->values, one->values) << "state " << i;
      EXPECT_EQ(batch[i]->store_stage, one->store_stage);
    }
  }
}

TEST(BatchTest, LoweringErrorsArePerState) {
  std::vector<absl::StatusOr<ProgramFeatures>> batch = ExtractFeaturesBatch(SomeStates(), 2);
  ASSERT_EQ(batch.size(), 5u);
  EXPECT_TRUE(batch[0].ok());
  EXPECT_FALSE(batch[3].ok());
  EXPECT_TRUE(batch[4].ok());
  EXPECT_TRUE(ExtractFeaturesBatch({}, 4).empty());
}

TEST(BatchTest, ExtractFromLoweredFuncMatchesExtractFromState) {
  schedule::State s = FeatureBenchState();
  absl::StatusOr<lower::LoweredFunc> func = lower::Lower(s, FeatureLowerOptions());
  ASSERT_TRUE(func.ok()) << func.status();
  ProgramFeatures with_state = ExtractFeatures(*func, &s);
  EXPECT_EQ(with_state.values, Features(s).values);
  EXPECT_EQ(with_state.store_stage, (std::vector<int>{2, 2, 3}));  // C.local init, update; C
  // Without the state: no stages and no pragma, the rest unchanged.
  ProgramFeatures without = ExtractFeatures(*func, nullptr);
  EXPECT_EQ(without.store_stage, (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(Value(without, 1, "auto_unroll_max_step"), 0);
  EXPECT_EQ(Value(without, 1, "float_mad"), Value(with_state, 1, "float_mad"));
}

TEST(BatchTest, BenchmarkRuns) {
  double seconds = MeasureFeatureExtractionSeconds(3);
  EXPECT_GT(seconds, 0);
  EXPECT_LT(seconds, 1);
}

}  // namespace
}  // namespace tuneforge::search::testing
