// The pack-sum objective and the row stacking, by hand-computed values.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "search/cost_model/pack_sum_objective.h"
#include "search/cost_model/stacked_rows.h"
#include "tests/search/cost_model/synthetic_programs.h"

namespace tuneforge::search {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatEq;
using testing::UniformProgram;

TEST(PackSumObjectiveTest, GradientsBelongToTheProgramSum) {
  // Program 0: rows 0-1 predict 0.25 + 0.5 = 0.75, label 0.5, weight 0.5.
  // Program 1: no rows. Program 2: row 2 predicts 0, label 0 (weight floored).
  const std::vector<float> predictions = {0.25f, 0.5f, 0.0f};
  const std::vector<size_t> begin = {0, 2, 2, 3};
  const std::vector<float> labels = {0.5f, 1.0f, 0.0f};
  const PackSumGradients g = PackSumSquaredError(predictions, begin, labels);
  EXPECT_THAT(g.grad, ElementsAre(FloatEq(0.5f * 0.25f), FloatEq(0.5f * 0.25f), FloatEq(0.0f)));
  EXPECT_THAT(g.hess, ElementsAre(FloatEq(0.5f), FloatEq(0.5f), FloatEq(kMinPackSumWeight)));
  EXPECT_NEAR(g.loss, 0.5 * 0.0625 / (0.5 + kMinPackSumWeight), 1e-7);
}

TEST(PackSumObjectiveTest, WeightFollowsTheLabel) {
  EXPECT_EQ(PackSumWeight(0.8f), 0.8f);
  EXPECT_EQ(PackSumWeight(0.0f), kMinPackSumWeight);
}

TEST(StackedRowsTest, StacksProgramsInOrder) {
  const ProgramFeatures a = UniformProgram(2, 3, 1.0f);
  const ProgramFeatures none = UniformProgram(0, 0, 0.0f);
  const ProgramFeatures b = UniformProgram(1, 3, 2.0f);
  absl::StatusOr<StackedRows> rows = StackForTraining({&a, &none, &b}, {0.1f, 0.2f, 0.3f});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->num_features, 3);
  EXPECT_THAT(rows->begin, ElementsAre(0, 2, 2, 3));
  EXPECT_EQ(rows->values.size(), 9u);
  EXPECT_EQ(rows->values[6], 2.0f);
  EXPECT_THAT(SumPerProgram({1, 2, 4}, rows->begin), ElementsAre(3.0f, 0.0f, 4.0f));

  const ProgramFeatures wider = UniformProgram(1, 4, 1.0f);
  const StackedRows predicted = StackForPrediction({&wider, &a, nullptr, &b}, 3);
  EXPECT_THAT(predicted.begin, ElementsAre(0, 0, 2, 2, 3));
}

}  // namespace
}  // namespace tuneforge::search
