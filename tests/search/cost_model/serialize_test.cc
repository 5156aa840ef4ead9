// Saving and loading cost models: a loaded model predicts exactly as the
// saved one; bytes of another build, width or kind, and bytes that are not
// a model, are refused with an error that names the problem.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "search/cost_model/cost_model.h"
#include "search/cost_model/model_blob.h"
#include "tests/search/cost_model/synthetic_programs.h"

namespace tuneforge::search {
namespace {

using ::testing::HasSubstr;
using testing::MakeSyntheticSet;
using testing::SyntheticSet;

constexpr int kSerializedFeatures = 12;

std::string Saved(const CostModel& model) {
  absl::StatusOr<std::string> bytes = model.Serialize();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : "";
}

std::unique_ptr<CostModel> Trained(int num_features, uint64_t seed) {
  XGBoostParams params;
  params.threads = 1;  // small sets; and OpenMP barriers spin badly on a busy machine
  std::unique_ptr<CostModel> model = MakeXGBoostModel(params);
  const SyntheticSet train = MakeSyntheticSet(150, num_features, seed);
  EXPECT_TRUE(model->Update(train.pointers(), train.labels).ok());
  return model;
}

// The same bytes with the header rewritten.
std::string WithHeader(const std::string& bytes, const CostModelHeader& header) {
  return WriteCostModelBlob(header, absl::string_view(bytes).substr(bytes.find('\n') + 1));
}

TEST(CostModelSerializeTest, LoadedXGBoostModelPredictsTheSame) {
  std::unique_ptr<CostModel> model = Trained(kSerializedFeatures, 1);
  const std::string bytes = Saved(*model);
  absl::StatusOr<CostModelHeader> header = ReadCostModelHeader(bytes);
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(header->kind, "xgboost");
  EXPECT_EQ(header->feature_schema_version, kFeatureSchemaVersion);
  EXPECT_EQ(header->num_features, kSerializedFeatures);

  std::unique_ptr<CostModel> loaded = MakeXGBoostModel();
  absl::Status status = loaded->Deserialize(bytes);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_TRUE(loaded->trained());
  const SyntheticSet check = MakeSyntheticSet(50, kSerializedFeatures, 2);
  EXPECT_EQ(loaded->Predict(check.pointers()), model->Predict(check.pointers()));
  EXPECT_EQ(loaded->PredictStores(check.programs[3]), model->PredictStores(check.programs[3]));
  EXPECT_EQ(Saved(*loaded), bytes);
}

TEST(CostModelSerializeTest, UntrainedXGBoostModelLoadsUntrained) {
  std::unique_ptr<CostModel> loaded = Trained(kSerializedFeatures, 3);
  ASSERT_TRUE(loaded->Deserialize(Saved(*MakeXGBoostModel())).ok());
  EXPECT_FALSE(loaded->trained());
}

TEST(CostModelSerializeTest, RandomModelKeepsItsSeed) {
  std::unique_ptr<CostModel> model = MakeRandomModel(99);
  ASSERT_TRUE(model->Update({}, {}).ok());
  std::unique_ptr<CostModel> loaded = MakeRandomModel(1);
  ASSERT_TRUE(loaded->Deserialize(Saved(*model)).ok());
  EXPECT_TRUE(loaded->trained());
  const SyntheticSet check = MakeSyntheticSet(20, kSerializedFeatures, 4);
  EXPECT_EQ(loaded->Predict(check.pointers()), MakeRandomModel(99)->Predict(check.pointers()));
}

TEST(CostModelSerializeTest, RefusesAnotherFeatureSchemaVersion) {
  const std::string bytes = Saved(*Trained(kSerializedFeatures, 5));
  const std::string older = WithHeader(bytes, {"xgboost", kFeatureSchemaVersion + 1, kSerializedFeatures});
  std::unique_ptr<CostModel> model = MakeXGBoostModel();
  absl::Status status = model->Deserialize(older);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("feature schema version ", kFeatureSchemaVersion + 1)));
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("this build extracts feature schema version ",
                                                       kFeatureSchemaVersion)));
  EXPECT_THAT(status.message(), HasSubstr("retrained from the records"));
  EXPECT_FALSE(model->trained());

  std::unique_ptr<CostModel> random = MakeRandomModel(1);
  status = random->Deserialize(WithHeader(Saved(*random), {"random", kFeatureSchemaVersion + 1, 0}));
  EXPECT_THAT(status.message(), HasSubstr("feature schema version"));
}

TEST(CostModelSerializeTest, RefusesAnotherRowWidthAndKeepsTheModel) {
  const std::string narrow = Saved(*Trained(kSerializedFeatures, 6));
  std::unique_ptr<CostModel> wide = Trained(kSerializedFeatures + 4, 7);
  const SyntheticSet check = MakeSyntheticSet(20, kSerializedFeatures + 4, 8);
  const std::vector<float> before = wide->Predict(check.pointers());
  absl::Status status = wide->Deserialize(narrow);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("reads rows of 12 features, but this model's rows have 16 features"));
  EXPECT_EQ(wide->Predict(check.pointers()), before);

  // A header whose width does not match the XGBoost model inside.
  std::unique_ptr<CostModel> fresh = MakeXGBoostModel();
  status = fresh->Deserialize(WithHeader(narrow, {"xgboost", kFeatureSchemaVersion, kSerializedFeatures + 1}));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("header says rows of 13 features but the XGBoost model inside reads 12"));
}

TEST(CostModelSerializeTest, RefusesAnotherKind) {
  absl::Status status = MakeXGBoostModel()->Deserialize(Saved(*MakeRandomModel(1)));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("kind 'random', expected kind 'xgboost'"));
  status = MakeRandomModel(1)->Deserialize(Saved(*Trained(kSerializedFeatures, 9)));
  EXPECT_THAT(status.message(), HasSubstr("kind 'xgboost', expected kind 'random'"));
}

TEST(CostModelSerializeTest, RefusesBytesThatAreNotAModel) {
  const std::string bytes = Saved(*Trained(kSerializedFeatures, 10));
  struct Case {
    std::string bytes;
    std::string needle;
  };
  const Case cases[] = {
      {"", "not a tuneforge cost model"},
      {"hello, this is not a model", "not a tuneforge cost model"},
      {std::string("tfcm") + std::string(300, 'x'), "header line has no end"},
      {"tfcm 1 xgboost one 12 5\nabcde", "is not 'tfcm <format> <kind> <schema> <features> <bytes>'"},
      {bytes.substr(0, bytes.size() / 2), "cut short"},
      {WriteCostModelBlob({"xgboost", kFeatureSchemaVersion, kSerializedFeatures}, "{not json at all"),
       "the XGBoost model inside cannot be read"},
  };
  for (const Case& c : cases) {
    std::unique_ptr<CostModel> model = MakeXGBoostModel();
    absl::Status status = model->Deserialize(c.bytes);
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << c.needle << ": " << status;
    EXPECT_THAT(status.message(), HasSubstr(c.needle));
    EXPECT_THAT(status.message(), HasSubstr("retrained from the records"));
    EXPECT_FALSE(model->trained());
  }
  absl::Status status = MakeRandomModel(1)->Deserialize(WriteCostModelBlob({"random", kFeatureSchemaVersion, 0}, "x"));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("is not '<seed> <trained>'"));
}

}  // namespace
}  // namespace tuneforge::search
