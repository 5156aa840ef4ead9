// Writing and reading records, jobs, tasks, workloads and devices.
#include <algorithm>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/marshal/to_proto.h"
#include "tests/server/record_store/store_test_util.h"

namespace tuneforge::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeJob;
using testing::MakeRecord;
using testing::MakeTask;
using testing::OpenOrFail;
using testing::TempDir;

std::vector<std::string> TaskIds(const std::vector<Record>& records) {
  std::vector<std::string> ids;
  for (const Record& record : records) ids.push_back(record.task_id);
  return ids;
}

RecordFilter All() {
  RecordFilter filter;
  filter.limit = 0;
  return filter;
}

TEST(RecordsTest, RecordRoundTripKeepsEveryField) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  Record record = MakeRecord("t-1", "wk-a", "dev-1", 0.00125);
  record.created_unix_ms = 1700000000123;
  record.compared_at_unix_ms = 1700000060000;  // imported from a store whose job compared it
  absl::StatusOr<AddOutcome> added = store->AddRecords({record});
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->accepted, 1);
  EXPECT_EQ(added->duplicate, 0);
  ASSERT_EQ(added->ids.size(), 1u);
  EXPECT_GT(added->ids[0], 0);

  absl::StatusOr<std::vector<Record>> back = store->Query(All());
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].id, added->ids[0]);
  record.id = added->ids[0];
  record.schema_version = kRecordSchemaVersion;
  record.timings = 1;  // stored as timed once
  EXPECT_EQ(RecordToJsonLine((*back)[0]), RecordToJsonLine(record));
}

TEST(RecordsTest, StoreFillsCreatedTimeAndSchemaVersion) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AddRecords({MakeRecord("t-1", "wk-a", "dev-1", 0.001)}).ok());
  auto back = store->Query(All());
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_GT((*back)[0].created_unix_ms, 1600000000000);
  EXPECT_EQ((*back)[0].schema_version, kRecordSchemaVersion);
}

TEST(RecordsTest, DuplicateTaskIdsAreCountedNotStored) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  // Within one call: the second t-1 is a duplicate of the first.
  auto first = store->AddRecords({MakeRecord("t-1", "wk-a", "dev-1", 0.002), MakeRecord("t-2", "wk-a", "dev-1", 0.003),
                                  MakeRecord("t-1", "wk-a", "dev-1", 0.001)});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->accepted, 2);
  EXPECT_EQ(first->duplicate, 1);
  ASSERT_EQ(first->ids.size(), 3u);
  EXPECT_GT(first->ids[0], 0);
  EXPECT_GT(first->ids[1], first->ids[0]);
  EXPECT_EQ(first->ids[2], 0);
  // Across calls (a retried report).
  auto second = store->AddRecords({MakeRecord("t-2", "wk-a", "dev-1", 0.004), MakeRecord("t-3", "wk-a", "dev-1", 0.005)});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->accepted, 1);
  EXPECT_EQ(second->duplicate, 1);
  EXPECT_EQ(second->ids[0], 0);

  EXPECT_EQ(*store->CountRecords(), 3);
  // The first stored record of t-1 stays (0.002 s, not the duplicate's 0.001 s).
  auto best = store->Best("wk-a", "dev-1");
  ASSERT_TRUE(best.ok() && best->has_value());
  EXPECT_EQ((*best)->task_id, "t-1");
  EXPECT_DOUBLE_EQ((*best)->median_seconds, 0.002);
}

TEST(RecordsTest, BestPerDeviceAndOverAnyDeviceIgnoresErrors) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store
                  ->AddRecords({
                      MakeRecord("a1", "wk-a", "dev-1", 0.003),
                      MakeRecord("a2", "wk-a", "dev-1", 0.004),
                      // Faster, but wrong: never a best.
                      MakeRecord("a3", "wk-a", "dev-1", 0.0001, "wrong_answer"),
                      MakeRecord("a4", "wk-a", "dev-1", 0, "timeout"),
                      MakeRecord("b1", "wk-a", "dev-2", 0.0015),
                      MakeRecord("b2", "wk-a", "dev-2", 0.0001, "runtime_crash"),
                      MakeRecord("c1", "wk-b", "dev-1", 0.010),
                  })
                  .ok());
  auto best1 = store->Best("wk-a", "dev-1");
  ASSERT_TRUE(best1.ok()) << best1.status();
  ASSERT_TRUE(best1->has_value());
  EXPECT_EQ((*best1)->task_id, "a1");

  auto best_any = store->Best("wk-a", "");
  ASSERT_TRUE(best_any.ok()) << best_any.status();
  ASSERT_TRUE(best_any->has_value());
  EXPECT_EQ((*best_any)->task_id, "b1");
  EXPECT_EQ((*best_any)->device_key, "dev-2");

  auto none_on_device = store->Best("wk-b", "dev-2");
  ASSERT_TRUE(none_on_device.ok());
  EXPECT_FALSE(none_on_device->has_value());
  auto unknown = store->Best("wk-zzz", "");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->has_value());

  // Only errors: no best.
  ASSERT_TRUE(store->AddRecords({MakeRecord("d1", "wk-d", "dev-1", 0.001, "compile_error")}).ok());
  auto only_errors = store->Best("wk-d", "dev-1");
  ASSERT_TRUE(only_errors.ok());
  EXPECT_FALSE(only_errors->has_value());

  auto empty_key = store->Best("", "dev-1");
  EXPECT_EQ(empty_key.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty_key.status().message(), HasSubstr("workload key is empty"));
}

TEST(RecordsTest, BestBreaksTiesByFirstStored) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AddRecords({MakeRecord("x", "wk", "dev", 0.002), MakeRecord("y", "wk", "dev", 0.002)}).ok());
  auto best = store->Best("wk", "dev");
  ASSERT_TRUE(best.ok() && best->has_value());
  EXPECT_EQ((*best)->task_id, "x");
}

class QueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrFail(dir_.File("store.db"));
    ASSERT_NE(store_, nullptr);
    // Stored in this order (ids ascending).
    ASSERT_TRUE(store_
                    ->AddRecords({
                        MakeRecord("q1", "wk-a", "dev-1", 0.005, "none", "job-1"),
                        MakeRecord("q2", "wk-a", "dev-1", 0.002, "none", "job-1"),
                        MakeRecord("q3", "wk-a", "dev-2", 0.001, "none", "job-2"),
                        MakeRecord("q4", "wk-a", "dev-1", 0.0005, "wrong_answer", "job-1"),
                        MakeRecord("q5", "wk-b", "dev-1", 0.003, "none", "job-2"),
                        MakeRecord("q6", "wk-a", "dev-1", 0.004, "none", "job-1"),
                    })
                    .ok());
  }
  std::vector<std::string> Run(RecordFilter filter) {
    auto records = store_->Query(filter);
    EXPECT_TRUE(records.ok()) << records.status();
    return records.ok() ? TaskIds(*records) : std::vector<std::string>{};
  }
  TempDir dir_;
  std::unique_ptr<RecordStore> store_;
};

TEST_F(QueryTest, NewestFirstByDefault) {
  EXPECT_THAT(Run(All()), ElementsAre("q6", "q5", "q4", "q3", "q2", "q1"));
}

TEST_F(QueryTest, FiltersByWorkloadDeviceAndJob) {
  RecordFilter filter = All();
  filter.workload_key = "wk-a";
  EXPECT_THAT(Run(filter), ElementsAre("q6", "q4", "q3", "q2", "q1"));
  filter.device_key = "dev-1";
  EXPECT_THAT(Run(filter), ElementsAre("q6", "q4", "q2", "q1"));
  filter = All();
  filter.job_id = "job-2";
  EXPECT_THAT(Run(filter), ElementsAre("q5", "q3"));
  filter.device_key = "dev-1";
  EXPECT_THAT(Run(filter), ElementsAre("q5"));
  filter.workload_key = "wk-zzz";
  EXPECT_THAT(Run(filter), ElementsAre());
}

TEST_F(QueryTest, OnlyOkDropsErrors) {
  RecordFilter filter = All();
  filter.only_ok = true;
  filter.device_key = "dev-1";
  EXPECT_THAT(Run(filter), ElementsAre("q6", "q5", "q2", "q1"));
}

TEST_F(QueryTest, FastestFirstPutsErrorsLast) {
  RecordFilter filter = All();
  filter.fastest_first = true;
  filter.workload_key = "wk-a";
  filter.device_key = "dev-1";
  EXPECT_THAT(Run(filter), ElementsAre("q2", "q6", "q1", "q4"));
  filter.only_ok = true;
  EXPECT_THAT(Run(filter), ElementsAre("q2", "q6", "q1"));
}

TEST_F(QueryTest, LimitCutsAfterOrdering) {
  RecordFilter filter;
  filter.limit = 2;
  EXPECT_THAT(Run(filter), ElementsAre("q6", "q5"));
  filter.fastest_first = true;
  EXPECT_THAT(Run(filter), ElementsAre("q3", "q2"));
  filter.limit = 0;  // no limit
  EXPECT_EQ(Run(filter).size(), 6u);
}

TEST_F(QueryTest, TotalsPerJob) {
  auto totals = store_->Totals("job-1");
  ASSERT_TRUE(totals.ok()) << totals.status();
  EXPECT_EQ(totals->trials, 4);
  EXPECT_EQ(totals->errors, 1);
  ASSERT_TRUE(totals->best.has_value());
  EXPECT_EQ(totals->best->task_id, "q2");

  auto other = store_->Totals("job-2");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->trials, 2);
  EXPECT_EQ(other->errors, 0);
  EXPECT_EQ(other->best->task_id, "q3");

  auto none = store_->Totals("job-unknown");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->trials, 0);
  EXPECT_EQ(none->errors, 0);
  EXPECT_FALSE(none->best.has_value());
}

TEST_F(QueryTest, MeasuredSchedulesIncludeErrorsOfThatWorkloadAndDevice) {
  ASSERT_TRUE(store_->AddRecords({[] {
                      Record r = MakeRecord("q7", "wk-a", "dev-1", 0, "invalid_schedule");
                      r.schedule_json = "{\"steps\": \"broken\"}";
                      return r;
                    }()})
                  .ok());
  auto schedules = store_->MeasuredSchedules("wk-a", "dev-1");
  ASSERT_TRUE(schedules.ok()) << schedules.status();
  ASSERT_EQ(schedules->size(), 5u);  // q1, q2, q4, q6, q7
  EXPECT_EQ(schedules->back(), "{\"steps\": \"broken\"}");
  auto other = store_->MeasuredSchedules("wk-b", "dev-2");
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->empty());
}

TEST(RecordsTest, InvalidRecordsAreRefusedNamingRecordAndField) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  Record bad = MakeRecord("", "wk-a", "dev-1", 0.001);
  auto result = store->AddRecords({MakeRecord("ok-1", "wk-a", "dev-1", 0.001), bad});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("records[1]"));
  EXPECT_THAT(result.status().message(), HasSubstr("field 'task_id' is empty"));
  EXPECT_THAT(result.status().message(), HasSubstr(dir.File("store.db")));
  EXPECT_EQ(*store->CountRecords(), 0);  // nothing of the call

  Record slow_but_ok = MakeRecord("ok-2", "wk-a", "dev-1", 0);
  result = store->AddRecords({slow_but_ok});
  EXPECT_THAT(result.status().message(), HasSubstr("field 'median_seconds' must be > 0 for a correct record"));
  Record negative = MakeRecord("ok-3", "wk-a", "dev-1", 0.001);
  negative.gflops = -1;
  result = store->AddRecords({negative});
  EXPECT_THAT(result.status().message(), HasSubstr("field 'gflops' must be a finite number >= 0"));
  Record future = MakeRecord("ok-4", "wk-a", "dev-1", 0.001);
  future.schema_version = kRecordSchemaVersion + 1;
  result = store->AddRecords({future});
  EXPECT_THAT(result.status().message(), HasSubstr("field 'schema_version'"));
}

TEST(RecordsTest, GivenIdIsKeptUnlessAnotherTaskHoldsIt) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  Record with_id = MakeRecord("t-1", "wk-a", "dev-1", 0.001);
  with_id.id = 1000;
  auto added = store->AddRecords({with_id});
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->ids[0], 1000);

  Record clash = MakeRecord("t-2", "wk-a", "dev-1", 0.001);
  clash.id = 1000;
  auto refused = store->AddRecords({MakeRecord("t-3", "wk-a", "dev-1", 0.001), clash});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(refused.status().message(), HasSubstr("id 1000 is the id of another task's record"));
  EXPECT_EQ(*store->CountRecords(), 1);  // t-3 was rolled back with its call

  // The same task again with its own id: a duplicate, not an error.
  auto again = store->AddRecords({with_id});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->duplicate, 1);
}

TEST(JobsTest, SaveJobInsertsThenReplaces) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  Job job1 = MakeJob("job-1", JobState::kQueued);
  job1.created_unix_ms = 1000;
  Job job2 = MakeJob("job-2", JobState::kRunning);
  job2.created_unix_ms = 2000;
  ASSERT_TRUE(store->SaveJob(job2).ok());
  ASSERT_TRUE(store->SaveJob(job1).ok());
  job1.state = JobState::kDone;
  job1.trials_done = 100;
  job1.best_gflops = 812.5;
  ASSERT_TRUE(store->SaveJob(job1).ok());

  auto jobs = store->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);  // oldest first
  EXPECT_EQ(ToProto((*jobs)[0]).DebugString(), ToProto(job1).DebugString());
  EXPECT_EQ(ToProto((*jobs)[1]).DebugString(), ToProto(job2).DebugString());

  auto refused = store->SaveJob(Job());
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("field 'id' is empty"));
}

TEST(TasksTest, PendingUntilTheirRecordArrives) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->SaveJob(MakeJob("job-1")).ok());
  ASSERT_TRUE(store->SaveJob(MakeJob("job-2")).ok());
  TaskRow with_kernel = MakeTask("t-1", "job-1");
  with_kernel.task.candidate = codegen::CompiledObject{"f", std::string(1000, 'x'), "x86_64-unknown-linux-gnu"};
  ASSERT_TRUE(store->AddTasks({with_kernel, MakeTask("t-2", "job-1"), MakeTask("t-3", "job-1")}).ok());
  ASSERT_TRUE(store->AddTasks({MakeTask("u-1", "job-2")}).ok());
  // Adding a task again changes nothing.
  ASSERT_TRUE(store->AddTasks({MakeTask("t-2", "job-1")}).ok());

  auto pending = store->PendingTasks("job-1");
  ASSERT_TRUE(pending.ok()) << pending.status();
  ASSERT_EQ(pending->size(), 3u);
  EXPECT_EQ((*pending)[0].task_id, "t-1");
  EXPECT_EQ((*pending)[0].job_id, "job-1");
  EXPECT_EQ((*pending)[0].workload_key, "wk-a");
  EXPECT_EQ((*pending)[0].device_key, "dev-1");
  EXPECT_EQ((*pending)[0].task.task_id, "t-1");
  EXPECT_EQ((*pending)[0].task.measure.repeat, 3);
  EXPECT_FALSE((*pending)[0].task.candidate.has_value());  // built kernels are not stored

  ASSERT_TRUE(store->AddRecords({MakeRecord("t-2", "wk-a", "dev-1", 0.001)}).ok());
  pending = store->PendingTasks("job-1");
  ASSERT_TRUE(pending.ok());
  std::vector<std::string> ids;
  for (const TaskRow& row : *pending) ids.push_back(row.task_id);
  EXPECT_THAT(ids, ElementsAre("t-1", "t-3"));
  EXPECT_EQ(store->PendingTasks("job-2")->size(), 1u);
  EXPECT_TRUE(store->PendingTasks("job-unknown")->empty());
}

TEST(TasksTest, RefusesTasksOfUnknownJobsAndBadRows) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  absl::Status status = store->AddTasks({MakeTask("t-1", "job-missing")});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("job 'job-missing', which is not stored"));

  ASSERT_TRUE(store->SaveJob(MakeJob("job-1")).ok());
  TaskRow mismatched = MakeTask("t-1", "job-1");
  mismatched.task.task_id = "t-other";
  status = store->AddTasks({mismatched});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("tasks[0]: field 'task.task_id' is 't-other'"));
  status = store->AddTasks({MakeTask("t-1", "job-1", "")});
  EXPECT_THAT(status.message(), HasSubstr("field 'workload_key' is empty"));
  EXPECT_TRUE(store->PendingTasks("job-1")->empty());
}

TEST(WorkloadsAndDevicesTest, RoundTrip) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  WorkloadSource workload = WorkloadSource::Spec("matmul:M=64,N=64,K=64");
  ASSERT_TRUE(store->SaveWorkload("wk-a", workload, 524288).ok());
  workload.text = "matmul:K=64,M=64,N=64";
  ASSERT_TRUE(store->SaveWorkload("wk-a", workload, 524289).ok());  // replaces
  auto back = store->LoadWorkload("wk-a");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ((*back)->workload_key, "wk-a");
  EXPECT_EQ((*back)->workload, WorkloadSource::Spec("matmul:K=64,M=64,N=64"));
  EXPECT_DOUBLE_EQ((*back)->flops, 524289);
  EXPECT_FALSE(store->LoadWorkload("wk-none")->has_value());
  EXPECT_EQ(store->SaveWorkload("", workload, 1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(store->SaveWorkload("wk-b", workload, -1).message(), HasSubstr("flops must be a finite number"));

  DeviceInfo device;
  device.device_key = "x86_64-avx512-2c";
  device.triple = "x86_64-unknown-linux-gnu";
  device.cores = 2;
  device.l2_bytes = 1 << 20;
  device.can_build = true;
  DeviceInfo arm;
  arm.device_key = "aarch64-neon-4c";
  ASSERT_TRUE(store->SaveDevice(device).ok());
  ASSERT_TRUE(store->SaveDevice(arm).ok());
  auto devices = store->LoadDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ(ToProto((*devices)[0].device).DebugString(), ToProto(arm).DebugString());
  EXPECT_EQ(ToProto((*devices)[1].device).DebugString(), ToProto(device).DebugString());
  EXPECT_GT((*devices)[1].last_seen_unix_ms, 0);
  EXPECT_EQ(store->SaveDevice(DeviceInfo()).code(), absl::StatusCode::kInvalidArgument);
}

TEST(RecordsTest, EverythingSurvivesReopening) {
  TempDir dir;
  {
    auto store = OpenOrFail(dir.File("store.db"));
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->SaveJob(MakeJob("job-1")).ok());
    ASSERT_TRUE(store->AddTasks({MakeTask("t-1", "job-1"), MakeTask("t-2", "job-1")}).ok());
    ASSERT_TRUE(store->AddRecords({MakeRecord("t-1", "wk-a", "dev-1", 0.001)}).ok());
  }
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(*store->CountRecords(), 1);
  EXPECT_EQ(store->LoadJobs()->size(), 1u);
  ASSERT_EQ(store->PendingTasks("job-1")->size(), 1u);
  EXPECT_EQ(store->PendingTasks("job-1")->at(0).task_id, "t-2");
}

}  // namespace
}  // namespace tuneforge::server
