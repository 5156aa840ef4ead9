// The XGBoost cost model on synthetic programs: it learns to rank programs
// it has not seen, a program's score is the sum of its rows' scores, it
// saves and loads, and it refuses bad input with an error instead of dying.
#include <cmath>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "search/cost_model/cost_model.h"
#include "search/cost_model/model_blob.h"
#include "tests/search/cost_model/synthetic_programs.h"

namespace tuneforge::search {
namespace {

using ::testing::HasSubstr;
using testing::MakeSyntheticSet;
using testing::PairwiseRankingAccuracy;
using testing::SyntheticSet;
using testing::UniformProgram;

constexpr int kModelFeatures = 12;

XGBoostParams SmallParams() {
  XGBoostParams params;
  params.threads = 1;  // small sets; and OpenMP barriers spin badly on a busy machine
  return params;
}

std::unique_ptr<CostModel> TrainedModel(const SyntheticSet& train, const XGBoostParams& params = SmallParams()) {
  std::unique_ptr<CostModel> model = MakeXGBoostModel(params);
  absl::Status status = model->Update(train.pointers(), train.labels);
  EXPECT_TRUE(status.ok()) << status;
  return model;
}

TEST(XGBoostModelTest, RanksHeldApartProgramsFarBetterThanChance) {
  const SyntheticSet train = MakeSyntheticSet(600, kModelFeatures, /*seed=*/1);
  const SyntheticSet held_apart = MakeSyntheticSet(300, kModelFeatures, /*seed=*/2);
  std::unique_ptr<CostModel> model = TrainedModel(train);
  EXPECT_TRUE(model->trained());
  EXPECT_EQ(model->kind(), "xgboost");
  const double accuracy = PairwiseRankingAccuracy(model->Predict(held_apart.pointers()), held_apart.labels);
  EXPECT_GT(accuracy, 0.8);

  // The random model, on the same task, is near chance.
  std::unique_ptr<CostModel> random = MakeRandomModel(7);
  ASSERT_TRUE(random->Update(train.pointers(), train.labels).ok());
  const double random_accuracy =
      PairwiseRankingAccuracy(random->Predict(held_apart.pointers()), held_apart.labels);
  EXPECT_LT(random_accuracy, 0.6);
  EXPECT_GT(accuracy, random_accuracy + 0.2);
}

TEST(XGBoostModelTest, UntrainedModelScoresZero) {
  std::unique_ptr<CostModel> model = MakeXGBoostModel(SmallParams());
  EXPECT_FALSE(model->trained());
  const SyntheticSet set = MakeSyntheticSet(5, kModelFeatures, 3);
  EXPECT_EQ(model->Predict(set.pointers()), std::vector<float>(5, 0.0f));
  EXPECT_EQ(model->PredictStores(set.programs[0]), std::vector<float>(set.programs[0].num_stores, 0.0f));
}

TEST(XGBoostModelTest, ProgramScoreIsTheSumOfItsStoreScores) {
  const SyntheticSet train = MakeSyntheticSet(300, kModelFeatures, 4);
  std::unique_ptr<CostModel> model = TrainedModel(train);
  const SyntheticSet check = MakeSyntheticSet(40, kModelFeatures, 5);
  const std::vector<float> scores = model->Predict(check.pointers());
  ASSERT_EQ(scores.size(), check.programs.size());
  for (size_t i = 0; i < check.programs.size(); ++i) {
    const std::vector<float> rows = model->PredictStores(check.programs[i]);
    ASSERT_EQ(rows.size(), static_cast<size_t>(check.programs[i].num_stores));
    float sum = 0;
    for (float row : rows) sum += row;
    EXPECT_NEAR(scores[i], sum, 1e-5) << "program " << i;
  }
}

TEST(XGBoostModelTest, SameSeedSameModel) {
  const SyntheticSet train = MakeSyntheticSet(200, kModelFeatures, 6);
  const SyntheticSet check = MakeSyntheticSet(30, kModelFeatures, 7);
  EXPECT_EQ(TrainedModel(train)->Predict(check.pointers()), TrainedModel(train)->Predict(check.pointers()));
}

TEST(XGBoostModelTest, UpdateRetrainsFromScratch) {
  // Trained on programs whose labels are reversed, then on the true ones:
  // the second model ranks like a model trained only on the true labels.
  SyntheticSet train = MakeSyntheticSet(300, kModelFeatures, 8);
  const SyntheticSet check = MakeSyntheticSet(100, kModelFeatures, 9);
  std::unique_ptr<CostModel> model = MakeXGBoostModel(SmallParams());
  std::vector<float> reversed;
  for (float label : train.labels) reversed.push_back(1.0f - label);
  ASSERT_TRUE(model->Update(train.pointers(), reversed).ok());
  ASSERT_TRUE(model->Update(train.pointers(), train.labels).ok());
  EXPECT_EQ(model->Predict(check.pointers()), TrainedModel(train)->Predict(check.pointers()));
}

TEST(XGBoostModelTest, ProgramsWithoutRowsAreSkippedAndScoreZero) {
  SyntheticSet train = MakeSyntheticSet(200, kModelFeatures, 10);
  const ProgramFeatures empty = UniformProgram(0, 0, 0);
  std::vector<const ProgramFeatures*> programs = train.pointers();
  std::vector<float> labels = train.labels;
  programs.push_back(&empty);
  labels.push_back(1.0f);
  std::unique_ptr<CostModel> model = MakeXGBoostModel(SmallParams());
  ASSERT_TRUE(model->Update(programs, labels).ok());
  const std::vector<float> scores = model->Predict({&empty, programs[0], nullptr});
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_EQ(scores[0], 0.0f);
  EXPECT_NE(scores[1], 0.0f);
  EXPECT_EQ(scores[2], 0.0f);  // null: nothing to score
  EXPECT_TRUE(model->PredictStores(empty).empty());

  // Only programs without rows: nothing to learn, the model stays untrained.
  std::unique_ptr<CostModel> fresh = MakeXGBoostModel(SmallParams());
  EXPECT_TRUE(fresh->Update({&empty, &empty}, {0.5f, 1.0f}).ok());
  EXPECT_FALSE(fresh->trained());
  EXPECT_TRUE(fresh->Update({}, {}).ok());
}

TEST(XGBoostModelTest, ProgramsOfAnotherWidthScoreZero) {
  std::unique_ptr<CostModel> model = TrainedModel(MakeSyntheticSet(100, kModelFeatures, 11));
  const ProgramFeatures wider = UniformProgram(2, kModelFeatures + 3, 0.5f);
  EXPECT_EQ(model->Predict({&wider}), std::vector<float>{0.0f});
  EXPECT_EQ(model->PredictStores(wider), std::vector<float>(2, 0.0f));
  ProgramFeatures malformed = UniformProgram(2, kModelFeatures, 0.5f);
  malformed.values.pop_back();
  EXPECT_EQ(model->Predict({&malformed}), std::vector<float>{0.0f});
}

TEST(XGBoostModelTest, BadUpdatesAreInvalidArgumentsAndKeepTheModel) {
  const SyntheticSet train = MakeSyntheticSet(100, kModelFeatures, 12);
  std::unique_ptr<CostModel> model = TrainedModel(train);
  const std::vector<float> before = model->Predict(train.pointers());
  auto expect_invalid = [&](const std::vector<const ProgramFeatures*>& programs, const std::vector<float>& labels,
                            const std::string& needle) {
    absl::Status status = model->Update(programs, labels);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(status.message(), HasSubstr(needle));
  };
  const ProgramFeatures a = UniformProgram(2, kModelFeatures, 0.1f);
  const ProgramFeatures wider = UniformProgram(1, kModelFeatures + 1, 0.1f);
  ProgramFeatures short_values = UniformProgram(3, kModelFeatures, 0.1f);
  short_values.values.resize(5);
  ProgramFeatures negative = UniformProgram(0, 0, 0);
  negative.num_stores = -1;

  expect_invalid({&a, &a}, {0.5f}, "2 programs but 1 labels");
  expect_invalid({&a, &wider}, {0.5f, 0.5f}, "programs[1]: has rows of 13 features but programs[0] has 12");
  expect_invalid({&a, &short_values}, {0.5f, 0.5f}, "programs[1]: it holds 5 values but num_stores 3 x num_features 12 = 36");
  expect_invalid({&negative}, {0.5f}, "must both be >= 0");
  expect_invalid({&a, nullptr}, {0.5f, 0.5f}, "programs[1]: is null");
  expect_invalid({&a}, {std::nanf("")}, "labels[0] is nan");
  expect_invalid({&a}, {-1.0f}, "labels[0] is -1");
  EXPECT_EQ(model->Predict(train.pointers()), before);
}

TEST(XGBoostModelTest, PrintsNothing) {
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  std::unique_ptr<CostModel> model = TrainedModel(MakeSyntheticSet(100, kModelFeatures, 15));
  absl::StatusOr<std::string> bytes = model->Serialize();
  ASSERT_TRUE(bytes.ok());
  std::unique_ptr<CostModel> loaded = MakeXGBoostModel();
  ASSERT_TRUE(loaded->Deserialize(*bytes).ok());
  loaded->Predict(MakeSyntheticSet(10, kModelFeatures, 16).pointers());
  // XGBoost's own parse error comes back as a Status, not on stderr.
  EXPECT_FALSE(
      loaded->Deserialize(WriteCostModelBlob({"xgboost", kFeatureSchemaVersion, kModelFeatures}, "{garbage")).ok());
  EXPECT_FALSE(
      loaded->Deserialize(WriteCostModelBlob({"xgboost", kFeatureSchemaVersion, kModelFeatures}, "binf\x01")).ok());
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(XGBoostModelTest, PredictsFromSeveralThreadsAtOnce) {
  std::unique_ptr<CostModel> model = TrainedModel(MakeSyntheticSet(200, kModelFeatures, 13));
  const SyntheticSet check = MakeSyntheticSet(200, kModelFeatures, 14);
  const std::vector<float> expected = model->Predict(check.pointers());
  std::vector<std::vector<float>> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) got[t] = model->Predict(check.pointers());
    });
  for (std::thread& thread : threads) thread.join();
  for (const std::vector<float>& scores : got) EXPECT_EQ(scores, expected);
}

}  // namespace
}  // namespace tuneforge::search
