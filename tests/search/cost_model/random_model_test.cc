// The random model: scores in [0, 1) from its seed, no learning.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "search/cost_model/cost_model.h"
#include "tests/search/cost_model/synthetic_programs.h"

namespace tuneforge::search {
namespace {

using ::testing::Each;
using ::testing::Ge;
using ::testing::HasSubstr;
using ::testing::Lt;
using testing::MakeSyntheticSet;
using testing::SyntheticSet;

TEST(RandomModelTest, ScoresAreUniformAndRepeatableFromTheSeed) {
  const SyntheticSet set = MakeSyntheticSet(100, 8, 1);
  std::unique_ptr<CostModel> model = MakeRandomModel(5);
  EXPECT_EQ(model->kind(), "random");
  const std::vector<float> scores = model->Predict(set.pointers());
  ASSERT_EQ(scores.size(), 100u);
  EXPECT_THAT(scores, Each(Ge(0.0f)));
  EXPECT_THAT(scores, Each(Lt(1.0f)));
  EXPECT_EQ(MakeRandomModel(5)->Predict(set.pointers()), scores);
  EXPECT_NE(MakeRandomModel(6)->Predict(set.pointers()), scores);
  EXPECT_EQ(model->PredictStores(set.programs[0]).size(), static_cast<size_t>(set.programs[0].num_stores));
}

TEST(RandomModelTest, UpdateOnlyMarksTrained) {
  std::unique_ptr<CostModel> model = MakeRandomModel(5);
  EXPECT_FALSE(model->trained());
  const SyntheticSet set = MakeSyntheticSet(10, 8, 2);
  ASSERT_TRUE(model->Update(set.pointers(), set.labels).ok());
  EXPECT_TRUE(model->trained());
  absl::Status status = model->Update(set.pointers(), {});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("10 programs but 0 labels"));
}

}  // namespace
}  // namespace tuneforge::search
