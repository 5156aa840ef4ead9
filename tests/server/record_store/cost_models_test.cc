// Warm starts: the cost model saved per device, and the device's records
// as training data, on real database files.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/record_store/store_test_util.h"

namespace tuneforge::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::TempDir;

// Bytes as a serialized model has them: binary, with NULs.
std::string ModelBytes(int variant) {
  std::string bytes = absl::StrCat("tfcm 1 xgboost 1 164 12\n", std::string(3, '\0'), "model-", variant);
  bytes.push_back('\xff');
  return bytes;
}

TEST(CostModelsTest, SavedModelLoadsBack) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->SaveCostModel("dev-1", "xgboost", ModelBytes(1), 250).ok());
  auto model = store->LoadCostModel("dev-1");
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(model->has_value());
  EXPECT_EQ((*model)->device_key, "dev-1");
  EXPECT_EQ((*model)->kind, "xgboost");
  EXPECT_EQ((*model)->bytes, ModelBytes(1));
  EXPECT_EQ((*model)->trained_on_records, 250);
  EXPECT_GT((*model)->updated_unix_ms, 1700000000000);
}

TEST(CostModelsTest, UnknownDeviceHasNoModel) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->SaveCostModel("dev-1", "xgboost", ModelBytes(1), 1).ok());
  auto model = store->LoadCostModel("dev-2");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_FALSE(model->has_value());
  EXPECT_FALSE(store->LoadCostModel("")->has_value());
}

TEST(CostModelsTest, SavingAgainReplacesOnlyThatDevicesModel) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->SaveCostModel("dev-1", "xgboost", ModelBytes(1), 10).ok());
  ASSERT_TRUE(store->SaveCostModel("dev-2", "xgboost", ModelBytes(2), 20).ok());
  ASSERT_TRUE(store->SaveCostModel("dev-1", "random", ModelBytes(3), 30).ok());
  auto first = store->LoadCostModel("dev-1");
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->kind, "random");
  EXPECT_EQ((*first)->bytes, ModelBytes(3));
  EXPECT_EQ((*first)->trained_on_records, 30);
  auto second = store->LoadCostModel("dev-2");
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->bytes, ModelBytes(2));
}

TEST(CostModelsTest, ModelSurvivesReopeningTheFile) {
  TempDir dir;
  const std::string path = dir.File("store.db");
  {
    auto store = OpenOrFail(path);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->SaveCostModel("dev-1", "xgboost", ModelBytes(5), 5).ok());
  }
  auto reopened = OpenOrFail(path);
  ASSERT_NE(reopened, nullptr);
  auto model = reopened->LoadCostModel("dev-1");
  ASSERT_TRUE(model.ok() && model->has_value());
  EXPECT_EQ((*model)->bytes, ModelBytes(5));
}

TEST(CostModelsTest, RefusesWhatCannotBeAModel) {
  TempDir dir;
  const std::string path = dir.File("store.db");
  auto store = OpenOrFail(path);
  ASSERT_NE(store, nullptr);
  struct Case {
    std::string device_key, kind, bytes;
    int64_t trained_on_records;
    std::string needle;
  };
  const Case cases[] = {
      {"", "xgboost", "b", 0, "the device key is empty"},
      {"dev-1", "", "b", 0, "the kind is empty"},
      {"dev-1", "xgboost", "", 0, "the bytes are empty"},
      {"dev-1", "xgboost", "b", -3, "trained_on_records is -3"},
  };
  for (const Case& c : cases) {
    absl::Status status = store->SaveCostModel(c.device_key, c.kind, c.bytes, c.trained_on_records);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(status.message(), HasSubstr(c.needle));
    EXPECT_THAT(status.message(), HasSubstr(path));
  }
  EXPECT_FALSE(store->LoadCostModel("dev-1")->has_value());
}

std::vector<int64_t> Ids(const std::vector<TrainingRecord>& records) {
  std::vector<int64_t> ids;
  for (const TrainingRecord& record : records) ids.push_back(record.id);
  return ids;
}

TEST(CostModelsTest, TrainingRecordsAreTheDevicesNewestFirst) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  Record failed = MakeRecord("t-2", "wk-b", "dev-1", 0, "runtime_crash");
  failed.workload = "conv2d:N=1,C=3";
  absl::StatusOr<AddOutcome> added = store->AddRecords({
      MakeRecord("t-1", "wk-a", "dev-1", 0.004),
      failed,
      MakeRecord("t-3", "wk-a", "dev-2", 0.001),  // another device
      MakeRecord("t-4", "wk-a", "dev-1", 0.002),
  });
  ASSERT_TRUE(added.ok()) << added.status();
  const std::vector<int64_t>& id = added->ids;

  auto all = store->TrainingRecords("dev-1", 0);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(Ids(*all), ElementsAre(id[3], id[1], id[0]));
  const TrainingRecord& newest = (*all)[0];
  EXPECT_EQ(newest.workload_key, "wk-a");
  EXPECT_EQ(newest.workload, "matmul:K=64,M=64,N=64");
  EXPECT_EQ(newest.schedule_json, testing::ScheduleText());
  EXPECT_EQ(newest.error_kind, measure::MeasureErrorKind::kNone);
  EXPECT_DOUBLE_EQ(newest.median_seconds, 0.002);
  EXPECT_GT(newest.created_unix_ms, 0);
  EXPECT_EQ((*all)[1].error_kind, measure::MeasureErrorKind::kRuntimeCrash);
  EXPECT_EQ((*all)[1].workload, "conv2d:N=1,C=3");

  auto two = store->TrainingRecords("dev-1", 2);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_THAT(Ids(*two), ElementsAre(id[3], id[1]));
  EXPECT_THAT(Ids(*store->TrainingRecords("dev-1", -1)), ElementsAre(id[3], id[1], id[0]));
  EXPECT_TRUE(store->TrainingRecords("dev-9", 10)->empty());
}

}  // namespace
}  // namespace tuneforge::server
