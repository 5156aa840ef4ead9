// The server's per-target cost models on a real record store: a model saved
// after training makes the next server (or job) on the target start warm,
// and the target's stored records become training data.
#include "server/core/cost_models.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_json.h"
#include "common/te/workload.h"
#include "search/annotation/annotation.h"
#include "search/features/features.h"
#include "search/mutation_choice/mutation_predictor.h"
#include "search/sketch_selection/sketch_bandit.h"
#include "search/sketch_generation.h"

namespace tuneforge::server {
namespace {

constexpr char kAvx512Device[] = "x86_64-avx512-2c";

class CostModelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tf_cost_models_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    store_ = *RecordStore::Open((dir_ / "t.db").string());
    workload_ = *te::ParseWorkload("matmul:M=64,N=64,K=64");
    search::HardwareParams hw;
    std::vector<search::Sketch> sketches = *search::GenerateCpuSketches(workload_.dag, hw);
    search::Rng rng(4);
    for (int i = 0; i < 24; ++i)
      states_.push_back(*search::SampleInitState(sketches[i % sketches.size()].state, hw, rng));
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Made-up but varied throughputs: what matters here is that a model learns.
  std::vector<search::MeasuredProgram> Programs() {
    std::vector<search::MeasuredProgram> out;
    for (size_t i = 0; i < states_.size(); ++i)
      out.push_back({*search::ExtractFeatures(states_[i]), 1e9 * static_cast<double>(1 + i % 7)});
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<RecordStore> store_;
  te::Workload workload_;
  std::vector<schedule::State> states_;
};

TEST_F(CostModelsTest, ASavedModelMakesTheNextServerWarm) {
  CostModels first(store_.get());
  std::shared_ptr<search::SharedCostModel> model = first.For(kAvx512Device);
  EXPECT_FALSE(model->trained());
  ASSERT_TRUE(model->AddMeasured(workload_.dag->workload_key(), Programs()).ok());
  ASSERT_TRUE(model->trained());
  ASSERT_TRUE(first.Save(kAvx512Device).ok());

  CostModels restarted(store_.get());  // a new server on the same database
  std::shared_ptr<search::SharedCostModel> warm = restarted.For(kAvx512Device);
  EXPECT_TRUE(warm->trained());
  std::vector<search::MeasuredProgram> programs = Programs();
  std::vector<const search::ProgramFeatures*> features;
  for (const auto& p : programs) features.push_back(&p.features);
  EXPECT_EQ(warm->Predict(features), model->Predict(features));
  // Another target starts cold.
  EXPECT_FALSE(restarted.For("aarch64-neon-4c")->trained());
}

TEST_F(CostModelsTest, StoredRecordsOfTheTargetBecomeTrainingData) {
  std::vector<Record> records;
  for (size_t i = 0; i < states_.size(); ++i) {
    Record r;
    r.task_id = absl::StrCat("t", i);
    r.job_id = "job-1";
    r.workload_key = workload_.dag->workload_key();
    r.workload = workload_.spec;
    r.device_key = i < 20 ? kAvx512Device : "aarch64-neon-4c";
    r.schedule_json = schedule::ScheduleToJsonText(
        schedule::Schedule{schedule::kScheduleVersion, workload_.spec, workload_.dag->workload_key(),
                           states_[i].steps()},
        -1);
    r.error_kind = i % 5 == 0 ? measure::MeasureErrorKind::kTimeout : measure::MeasureErrorKind::kNone;
    if (i % 5 == 0) r.error = "it took too long";
    r.median_seconds = i % 5 == 0 ? 0 : 0.001 * static_cast<double>(1 + i % 4);
    r.repeat_seconds.push_back(r.median_seconds);
    r.gflops = r.median_seconds > 0 ? workload_.dag->flops() / r.median_seconds / 1e9 : 0;
    r.worker_id = "worker-1";
    r.schema_version = kRecordSchemaVersion;
    records.push_back(r);
  }
  ASSERT_TRUE(store_->AddRecords(records).ok());
  CostModels models(store_.get());
  std::shared_ptr<search::SharedCostModel> model = models.For(kAvx512Device);
  EXPECT_EQ(model->num_programs(), 20);  // this target's records, failed ones included (label 0)
  EXPECT_FALSE(model->trained());        // until the first results of a job retrain it
  ASSERT_TRUE(model->AddMeasured(workload_.dag->workload_key(), {}).ok());
  EXPECT_TRUE(model->trained());
}

// What the learned search options learned (the mutation predictor, each
// workload's sketch contest) is saved with the model; a new server on the
// reopened database file starts from it; damaged saved bytes are dropped
// and learned again, not fatal.
TEST_F(CostModelsTest, TheLearnedSearchStateSurvivesARestart) {
  std::string saved;
  {
    CostModels first(store_.get());
    std::shared_ptr<search::SharedCostModel> model = first.For(kAvx512Device);
    std::vector<search::MutationOutcome> outcomes;
    for (size_t i = 0; i < states_.size(); ++i)
      outcomes.push_back({search::FeatureSummary(*search::ExtractFeatures(states_[i])),
                          static_cast<search::MutationKind>(i % search::kNumMutationKinds), i % 3 == 0});
    model->learned().LearnMutations(outcomes);
    search::SketchBandit bandit(2, 4);
    for (int i = 0; i < 4; ++i) bandit.Record(0, 5e9), bandit.Record(1, 1e9);
    bandit.Allocate(4);  // sketch 1 is out
    model->learned().SaveBandit(workload_.dag->workload_key(), bandit);
    ASSERT_TRUE(first.Save(kAvx512Device).ok());  // no trained model yet: the learned state alone
    saved = model->learned().Serialize();
  }
  store_.reset();
  store_ = *RecordStore::Open((dir_ / "t.db").string());  // the file, opened again
  CostModels restarted(store_.get());
  std::shared_ptr<search::SharedCostModel> warm = restarted.For(kAvx512Device);
  EXPECT_EQ(warm->learned().Serialize(), saved);
  std::optional<search::SketchBandit> bandit = warm->learned().bandit(workload_.dag->workload_key());
  ASSERT_TRUE(bandit.has_value());
  EXPECT_FALSE(bandit->in_contest(1));
  EXPECT_EQ(warm->learned().mutation_predictor().outcomes(search::MutationKind::kParallel), 6);
  EXPECT_TRUE(restarted.For("aarch64-neon-4c")->learned().empty());  // another target: nothing

  ASSERT_TRUE(store_->SaveLearnedSearchState(kAvx512Device, "tfls 1\nbandit only-a-key\n").ok());
  CostModels after_damage(store_.get());
  EXPECT_TRUE(after_damage.For(kAvx512Device)->learned().empty());
  EXPECT_EQ(store_->SaveLearnedSearchState("", "x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->SaveLearnedSearchState(kAvx512Device, "").code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tuneforge::server
