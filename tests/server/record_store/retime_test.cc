// Re-timing results (MeasuredResult with retime_of): they update the record they
// re-time instead of adding one, once, and can take a best away; those of a
// final comparison keep only that comparison's sessions.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/record_store/store_test_util.h"

namespace tuneforge::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::MakeJob;
using testing::MakeRecord;
using testing::MakeTask;
using testing::OpenOrFail;
using testing::TempDir;

class RetimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrFail(dir_.File("store.db"));
    ASSERT_NE(store_, nullptr);
    ASSERT_TRUE(store_->SaveJob(MakeJob("job-1")).ok());
    // Two programs measured once: "lucky" looked fastest.
    Record lucky = MakeRecord("t-lucky", "wk-a", "dev-1", 0.001);
    lucky.repeat_seconds.clear();
    for (double s : {0.0010, 0.0009, 0.0011}) lucky.repeat_seconds.push_back(s);
    lucky.gflops = 100;
    Record steady = MakeRecord("t-steady", "wk-a", "dev-1", 0.0012);
    ASSERT_TRUE(store_->AddRecords({lucky, steady}).ok());
    ASSERT_TRUE(store_->AddTasks({MakeTask("r-1", "job-1")}).ok());
  }

  // The re-timing task r-1's result for t-lucky.
  MeasuredResult Retime(std::vector<double> repeats, const std::string& error_kind = "none") {
    Record r = MakeRecord("r-1", "wk-a", "dev-1", repeats.empty() ? 0 : repeats[repeats.size() / 2], error_kind);
    r.repeat_seconds.clear();
    for (double s : repeats) r.repeat_seconds.push_back(s);
    if (error_kind != "none") r.error = "wrong result at [3]";
    return {r, "t-lucky"};
  }

  Record Stored(const std::string& task_id) {
    RecordFilter filter;
    filter.limit = 0;
    absl::StatusOr<std::vector<Record>> records = store_->Query(filter);
    EXPECT_TRUE(records.ok()) << records.status();
    if (records.ok())
      for (const Record& r : *records)
        if (r.task_id == task_id) return r;
    ADD_FAILURE() << "no record of " << task_id;
    return {};
  }

  TempDir dir_;
  std::unique_ptr<RecordStore> store_;
};

TEST_F(RetimeTest, MergesTheSessionsIntoTheRecordAndAddsNone) {
  absl::StatusOr<AddOutcome> added = store_->AddResults({Retime({0.0014, 0.0015, 0.0016})});
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->accepted, 0);  // an update of a record, not a new one
  EXPECT_EQ(added->updated, 1);
  const Record lucky = Stored("t-lucky");
  EXPECT_EQ(added->ids, std::vector<int64_t>{lucky.id});
  EXPECT_EQ(*store_->CountRecords(), 2);  // no record of its own
  EXPECT_EQ(lucky.timings, 2);
  EXPECT_THAT(std::vector<double>(lucky.repeat_seconds.begin(), lucky.repeat_seconds.end()),
              ElementsAre(0.0010, 0.0009, 0.0011, 0.0014, 0.0015, 0.0016));
  // Median over the six repeats: (0.0011 + 0.0014) / 2; GFLOPS follow it.
  EXPECT_DOUBLE_EQ(lucky.median_seconds, 0.00125);
  EXPECT_NEAR(lucky.gflops, 100 * 0.001 / 0.00125, 1e-9);
  // Slower now than the program timed once at 1.2 ms: the best changes.
  EXPECT_EQ((*store_->Best("wk-a", "dev-1"))->task_id, "t-steady");
  EXPECT_EQ(store_->Totals("job-1")->best->task_id, "t-steady");
  EXPECT_EQ(store_->Totals("job-1")->trials, 2);
}

TEST_F(RetimeTest, EndsItsTaskAndIsAppliedOnce) {
  ASSERT_EQ(store_->PendingTasks("job-1")->size(), 1u);
  ASSERT_TRUE(store_->AddResults({Retime({0.001})}).ok());
  EXPECT_TRUE(store_->PendingTasks("job-1")->empty());
  absl::StatusOr<AddOutcome> again = store_->AddResults({Retime({0.005})});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->duplicate, 1);
  EXPECT_EQ(again->ids, std::vector<int64_t>{0});
  EXPECT_EQ(Stored("t-lucky").timings, 2);
  EXPECT_EQ(Stored("t-lucky").repeat_seconds.size(), 4);
}

TEST_F(RetimeTest, AKernelThatFailsWhenRunAgainIsNoLongerCorrect) {
  ASSERT_TRUE(store_->AddResults({Retime({}, "wrong_answer")}).ok());
  const Record lucky = Stored("t-lucky");
  EXPECT_STREQ(measure::ErrorKindName(lucky.error_kind), "wrong_answer");
  EXPECT_THAT(lucky.error, HasSubstr("re-timing failed: wrong result at [3]"));
  EXPECT_EQ((*store_->Best("wk-a", "dev-1"))->task_id, "t-steady");
  EXPECT_EQ(store_->Totals("job-1")->errors, 1);
}

TEST_F(RetimeTest, ALostWorkerSaysNothingAboutTheKernel) {
  ASSERT_TRUE(store_->AddResults({Retime({}, "worker_lost")}).ok());
  const Record lucky = Stored("t-lucky");
  EXPECT_STREQ(measure::ErrorKindName(lucky.error_kind), "none");
  EXPECT_EQ(lucky.timings, 1);
  EXPECT_DOUBLE_EQ(lucky.median_seconds, 0.001);
  EXPECT_TRUE(store_->PendingTasks("job-1")->empty());
}

// The lucky program's first session (0.9-1.1 ms) came from a quiet moment;
// the comparison times it beside its rivals at one moment: 1.6 ms.
TEST_F(RetimeTest, AComparisonReplacesSessionsFromOtherMomentsAndMergesItsOwn) {
  MeasuredResult forwards = Retime({0.0016, 0.0017});
  forwards.compared_at_unix_ms = 1'700'000'000'000;
  ASSERT_TRUE(store_->AddTasks({MakeTask("r-2", "job-1")}).ok());
  MeasuredResult backwards = Retime({0.0015, 0.0016});
  backwards.record.task_id = "r-2";
  backwards.compared_at_unix_ms = forwards.compared_at_unix_ms;

  ASSERT_TRUE(store_->AddResults({forwards}).ok());
  Record lucky = Stored("t-lucky");
  EXPECT_THAT(std::vector<double>(lucky.repeat_seconds.begin(), lucky.repeat_seconds.end()),
              ElementsAre(0.0016, 0.0017));
  EXPECT_DOUBLE_EQ(lucky.median_seconds, 0.00165);
  EXPECT_NEAR(lucky.gflops, 100 * 0.001 / 0.00165, 1e-9);
  EXPECT_EQ(lucky.compared_at_unix_ms, forwards.compared_at_unix_ms);
  EXPECT_EQ(lucky.timings, 2);

  ASSERT_TRUE(store_->AddResults({backwards}).ok());  // the same comparison's second session
  lucky = Stored("t-lucky");
  EXPECT_THAT(std::vector<double>(lucky.repeat_seconds.begin(), lucky.repeat_seconds.end()),
              ElementsAre(0.0016, 0.0017, 0.0015, 0.0016));
  EXPECT_DOUBLE_EQ(lucky.median_seconds, 0.0016);
  EXPECT_EQ(lucky.timings, 3);

  // A later comparison starts over from its own sessions.
  ASSERT_TRUE(store_->AddTasks({MakeTask("r-3", "job-1")}).ok());
  MeasuredResult later = Retime({0.0011});
  later.record.task_id = "r-3";
  later.compared_at_unix_ms = forwards.compared_at_unix_ms + 60'000;
  ASSERT_TRUE(store_->AddResults({later}).ok());
  lucky = Stored("t-lucky");
  EXPECT_THAT(std::vector<double>(lucky.repeat_seconds.begin(), lucky.repeat_seconds.end()), ElementsAre(0.0011));
  EXPECT_EQ(lucky.compared_at_unix_ms, later.compared_at_unix_ms);
  EXPECT_EQ(lucky.timings, 4);

  const std::string line = RecordToJsonLine(lucky);
  EXPECT_THAT(line, HasSubstr("\"compared_at_unix_ms\":1700000060000"));
  absl::StatusOr<Record> back = RecordFromJsonLine(line);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->compared_at_unix_ms, later.compared_at_unix_ms);
  // A record never compared says nothing about it in the export format.
  EXPECT_THAT(RecordToJsonLine(Stored("t-steady")), Not(HasSubstr("compared_at_unix_ms")));
}

// Once job-1 compared t-lucky (now 1.6 ms), it offers only that record:
// t-steady's 1.2 ms is from another moment. A job that compared nothing
// offers all its records.
TEST_F(RetimeTest, AJobThatComparedOffersOnlyTheComparedAsItsBest) {
  MeasuredResult compared = Retime({0.0016});
  compared.compared_at_unix_ms = 1'700'000'000'000;
  ASSERT_TRUE(store_->AddResults({compared}).ok());
  EXPECT_EQ((*store_->Best("wk-a", "dev-1"))->task_id, "t-lucky");
  EXPECT_EQ((*store_->Best("wk-a", ""))->task_id, "t-lucky");
  absl::StatusOr<JobTotals> totals = store_->Totals("job-1");
  ASSERT_TRUE(totals.ok()) << totals.status();
  EXPECT_EQ(totals->best->task_id, "t-lucky");
  EXPECT_DOUBLE_EQ(totals->by_workload["wk-a"].best_seconds, 0.0016);
  EXPECT_EQ(totals->trials, 2);

  ASSERT_TRUE(store_->SaveJob(MakeJob("job-2")).ok());
  Record other = MakeRecord("t-other", "wk-a", "dev-1", 0.0014);
  other.job_id = "job-2";
  ASSERT_TRUE(store_->AddRecords({other}).ok());
  EXPECT_EQ((*store_->Best("wk-a", "dev-1"))->task_id, "t-other");
  // Another workload of job-1, never compared: all its records count.
  ASSERT_TRUE(store_->AddRecords({MakeRecord("t-b", "wk-b", "dev-1", 0.002)}).ok());
  EXPECT_EQ((*store_->Best("wk-b", "dev-1"))->task_id, "t-b");
}

TEST_F(RetimeTest, AnOrdinaryReTimingKeepsTheComparisonStamp) {
  MeasuredResult compared = Retime({0.0016});
  compared.compared_at_unix_ms = 1'700'000'000'000;
  ASSERT_TRUE(store_->AddResults({compared}).ok());
  ASSERT_TRUE(store_->AddTasks({MakeTask("r-2", "job-1")}).ok());
  MeasuredResult ordinary = Retime({0.0014});
  ordinary.record.task_id = "r-2";
  ASSERT_TRUE(store_->AddResults({ordinary}).ok());
  const Record lucky = Stored("t-lucky");
  EXPECT_EQ(lucky.compared_at_unix_ms, compared.compared_at_unix_ms);
  EXPECT_EQ(lucky.repeat_seconds.size(), 2u);  // merged, as re-timings are
}

TEST_F(RetimeTest, TimingsTravelInTheExportFormat) {
  ASSERT_TRUE(store_->AddResults({Retime({0.001})}).ok());
  Record lucky = Stored("t-lucky");
  const std::string line = RecordToJsonLine(lucky);
  EXPECT_THAT(line, HasSubstr("\"timings\":2"));
  absl::StatusOr<Record> back = RecordFromJsonLine(line);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->timings, 2);
}

}  // namespace
}  // namespace tuneforge::server
