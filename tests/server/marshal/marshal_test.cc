// The one marshalling unit between the server's types and the API's
// messages: every field crosses in both directions, defaults are filled
// where the API says a zero means the default, and what the server's types
// cannot hold is an error naming the field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/marshal/from_proto.h"
#include "server/marshal/to_proto.h"

namespace tuneforge::server {
namespace {

using ::testing::HasSubstr;

Job FullJob() {
  Job job;
  job.id = "job-0123";
  job.spec.workloads = {WorkloadSource::Spec("matmul:M=8,N=8,K=8"),
                        WorkloadSource::Definition("input X: float32[4]\nZ[a: 4] = X[a] * 2.0\n", "twice")};
  job.spec.device_key = "x86_64-avx512-epyc-2c";
  job.spec.trials = 200;
  job.spec.policy = "random";
  job.spec.batch_size = 32;
  job.spec.measure.number = 2;
  job.spec.measure.repeat = 5;
  job.spec.measure.min_repeat_ms = 50;
  job.spec.measure.flush_cache = true;
  job.spec.measure.threads = 2;
  job.spec.measure.timeout_s = 4.5;
  job.spec.seed = 7;
  job.spec.name = "nightly";
  job.spec.retime_top = -1;
  job.state = JobState::kRunning;
  job.trials_done = 64;
  job.trials_total = 200;
  job.best_gflops = 812.5;
  job.best_seconds = 1.25e-3;
  job.best_schedule_json = R"({"steps":[]})";
  job.best_workload_key = "wk";
  job.error = "";
  job.created_unix_ms = 1700000000000;
  job.updated_unix_ms = 1700000000500;
  job.errors = 3;
  job.retimed = 2;
  job.search_total = {1.5, 0.25, 4096};
  job.search_last_round = {0.5, 0.125, 2048};
  job.no_candidate_succeeded = true;
  return job;
}

TEST(MarshalTest, AJobCrossesBothWaysWithEveryField) {
  const Job job = FullJob();
  const v1::Job proto = ToProto(job);
  EXPECT_EQ(proto.state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(proto.spec().workloads(1).definition(), job.spec.workloads[1].text);
  EXPECT_EQ(proto.spec().measure().timeout_s(), 4.5);
  EXPECT_EQ(proto.search_total().programs_scored(), 4096);
  const Job back = FromProto(proto);
  EXPECT_EQ(ToProto(back).DebugString(), proto.DebugString());
  EXPECT_EQ(back.spec.workloads, job.spec.workloads);
  EXPECT_TRUE(back.no_candidate_succeeded);
}

TEST(MarshalTest, EveryJobStateHasItsOwnValue) {
  for (JobState s : {JobState::kUnspecified, JobState::kQueued, JobState::kRunning, JobState::kDone,
                     JobState::kFailed, JobState::kCancelled})
    EXPECT_EQ(FromProto(ToProto(s)), s) << JobStateName(s);
  EXPECT_EQ(FromProto(static_cast<v1::JobState>(99)), JobState::kUnspecified);
}

TEST(MarshalTest, MeasureOptionsLeftZeroTakeTheDefaults) {
  v1::JobSpec spec;
  spec.mutable_measure()->set_repeat(7);
  const JobSpec back = FromProto(spec);
  const measure::MeasureOptions defaults;
  EXPECT_EQ(back.measure.repeat, 7);
  EXPECT_EQ(back.measure.number, defaults.number);
  EXPECT_EQ(back.measure.min_repeat_ms, defaults.min_repeat_ms);
  EXPECT_EQ(back.measure.timeout_s, defaults.timeout_s);
  EXPECT_EQ(back.measure.threads, 0);  // all cores
  // A negative value is kept, so the spec check can name it.
  spec.mutable_measure()->set_number(-3);
  EXPECT_EQ(FromProto(spec).measure.number, -3);
}

TEST(MarshalTest, ATaskCarriesItsScheduleAndBuiltKernels) {
  MeasureTask task;
  task.task_id = "job-1-t3";
  task.workload = WorkloadSource::Spec("matmul:M=8,N=8,K=8");
  task.workload_key = "wk";
  task.schedule.workload = "matmul:M=8,N=8,K=8";
  task.schedule.workload_key = "wk";
  task.schedule.steps.push_back(schedule::ReorderStep{2, {1, 0}});
  task.measure.timeout_s = 3;
  task.candidate = codegen::CompiledObject{"cand", "\x7f" "ELF...", "aarch64-unknown-linux-gnu"};
  task.retime_of = "job-1-t1";
  task.behind = {.slow_above_s = 3e-3, .probe_above_s = 1.1e-3, .contend_above_s = 1.03e-3};
  task.build_deadline_s = 2.5;
  const v1::MeasureTask proto = ToProto(task);
  EXPECT_TRUE(proto.has_candidate());
  EXPECT_FALSE(proto.has_reference());
  absl::StatusOr<MeasureTask> back = FromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ToProto(*back).DebugString(), proto.DebugString());
  ASSERT_TRUE(back->candidate.has_value());
  EXPECT_EQ(back->candidate->object, task.candidate->object);
  EXPECT_FALSE(back->reference.has_value());
  EXPECT_EQ(back->schedule.steps.size(), 1u);
  EXPECT_EQ(back->behind.slow_above_s, 3e-3);
  EXPECT_EQ(back->behind.probe_above_s, 1.1e-3);
  EXPECT_EQ(back->behind.contend_above_s, 1.03e-3);
  EXPECT_EQ(back->build_deadline_s, 2.5);

  v1::MeasureTask broken = proto;
  broken.mutable_schedule()->mutable_steps(0)->clear_kind();
  absl::StatusOr<MeasureTask> refused = FromProto(broken);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("schedule: "));
}

TEST(MarshalTest, AReportWithAnUnsetErrorKindIsRefusedNamingTheResult) {
  v1::ReportRequest report;
  report.set_worker_id("w1");
  report.set_lease_id("l1");
  v1::MeasureResult* ok = report.add_results();
  ok->set_task_id("t1");
  ok->set_error_kind(v1::MEASURE_ERROR_KIND_TIMEOUT);
  ok->set_error("past 10 s");
  absl::StatusOr<WorkerReport> back = FromProto(report);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->results.size(), 1u);
  EXPECT_EQ(back->results[0].task_id, "t1");
  EXPECT_EQ(back->results[0].result.error_kind, measure::MeasureErrorKind::kTimeout);

  report.add_results()->set_task_id("t2");  // no error kind
  absl::StatusOr<WorkerReport> refused = FromProto(report);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("results[1].error_kind"));
}

TEST(MarshalTest, RecordsShowTheirErrorKindByName) {
  Record record;
  record.task_id = "t1";
  record.error_kind = measure::MeasureErrorKind::kWrongAnswer;
  record.repeat_seconds = {1e-3, 2e-3};
  const v1::Record proto = ToProto(record);
  EXPECT_EQ(proto.error_kind(), "wrong_answer");
  EXPECT_EQ(proto.repeat_seconds_size(), 2);
}

TEST(MarshalTest, WorkersAndLeasesCrossWithTheirFields) {
  WorkerStatus worker{"w1", {}, WorkerState::kLost, 3, 1700000000000, 42};
  worker.device.device_key = "aarch64-neon-cortex-a72-4c";
  worker.device.can_build = false;
  const v1::WorkerStatus proto = ToProto(worker);
  EXPECT_EQ(proto.state(), "lost");
  EXPECT_EQ(proto.device().device_key(), worker.device.device_key);
  EXPECT_EQ(FromProto(proto.device()).device_key, worker.device.device_key);
  LeaseGrant lease{"l7", {MeasureTask{}}, 1700000001000};
  lease.tasks[0].task_id = "t9";
  const v1::LeaseResponse lease_proto = ToProto(lease);
  EXPECT_EQ(lease_proto.lease_id(), "l7");
  ASSERT_EQ(lease_proto.tasks_size(), 1);
  EXPECT_EQ(lease_proto.tasks(0).task_id(), "t9");
  EXPECT_EQ(lease_proto.deadline_unix_ms(), 1700000001000);
}

}  // namespace
}  // namespace tuneforge::server
