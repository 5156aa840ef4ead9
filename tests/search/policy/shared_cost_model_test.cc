// The target's shared cost model: what it trains on, and that a batch of
// updates (one model job's round over all its tasks) trains once.
#include "search/shared_cost_model.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tuneforge::search {
namespace {

// Counts trainings and remembers the training set's size.
struct TrainingLog {
  std::atomic<int> trainings{0};
  std::atomic<int> last_programs{0};
};

class CountingModel final : public CostModel {
 public:
  explicit CountingModel(TrainingLog* log) : log_(log) {}
  absl::Status Update(const std::vector<const ProgramFeatures*>& programs, const std::vector<float>&) override {
    ++log_->trainings;
    log_->last_programs = static_cast<int>(programs.size());
    trained_ = true;
    return absl::OkStatus();
  }
  std::vector<float> Predict(const std::vector<const ProgramFeatures*>& programs) const override {
    return std::vector<float>(programs.size(), 0.f);
  }
  std::vector<float> PredictStores(const ProgramFeatures& program) const override {
    return std::vector<float>(program.num_stores, 0.f);
  }
  bool trained() const override { return trained_; }
  std::string kind() const override { return "counting"; }
  absl::StatusOr<std::string> Serialize() const override { return std::string(); }
  absl::Status Deserialize(const std::string&) override { return absl::OkStatus(); }

 private:
  TrainingLog* log_;
  bool trained_ = false;
};

std::vector<MeasuredProgram> Programs(int n) {
  std::vector<MeasuredProgram> programs(n);
  for (int i = 0; i < n; ++i) {
    programs[i].features.num_stores = 1;
    programs[i].features.num_features = 1;
    programs[i].features.values = {static_cast<float>(i)};
    programs[i].throughput = 1e9 * (i + 1);
  }
  return programs;
}

std::unique_ptr<SharedCostModel> Counted(TrainingLog* log) {
  return std::make_unique<SharedCostModel>([log] { return std::make_unique<CountingModel>(log); });
}

TEST(SharedCostModelTest, EachUpdateRetrainsOnEverythingSoFar) {
  TrainingLog log;
  auto model = Counted(&log);
  ASSERT_TRUE(model->AddMeasured("a", Programs(3)).ok());
  ASSERT_TRUE(model->AddMeasured("b", Programs(2)).ok());
  EXPECT_EQ(log.trainings, 2);
  EXPECT_EQ(log.last_programs, 5);
  EXPECT_TRUE(model->trained());
}

TEST(SharedCostModelTest, ABatchOfUpdatesTrainsOnceWhenItCloses) {
  TrainingLog log;
  auto model = Counted(&log);
  {
    SharedCostModel::Batch round(*model);
    for (const char* task : {"conv_a", "conv_b", "dense"}) ASSERT_TRUE(model->AddMeasured(task, Programs(4)).ok());
    EXPECT_EQ(log.trainings, 0) << "trained inside the batch";
    EXPECT_EQ(model->num_programs(), 12);
  }
  EXPECT_EQ(log.trainings, 1);
  EXPECT_EQ(log.last_programs, 12);
  EXPECT_TRUE(model->trained());
}

TEST(SharedCostModelTest, NestedBatchesTrainWhenTheLastCloses) {
  TrainingLog log;
  auto model = Counted(&log);
  {
    SharedCostModel::Batch outer(*model);
    {
      SharedCostModel::Batch inner(*model);
      ASSERT_TRUE(model->AddMeasured("a", Programs(2)).ok());
    }
    EXPECT_EQ(log.trainings, 0);
  }
  EXPECT_EQ(log.trainings, 1);
  // A batch with nothing added trains nothing.
  { SharedCostModel::Batch empty(*model); }
  EXPECT_EQ(log.trainings, 1);
}

}  // namespace
}  // namespace tuneforge::search
