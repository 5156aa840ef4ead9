// A candidate that crashes, hangs or runs out of memory costs one record with its
// error kind, never the worker: the same worker then measures a normal job.
#include <unistd.h>

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/service/harness.h"
#include "tests/service/runner_processes.h"

namespace tuneforge::service_test {
namespace {

int CountErrorKind(const std::vector<v1::Record>& records, const std::string& kind) {
  return static_cast<int>(std::count_if(records.begin(), records.end(),
                                        [&](const v1::Record& r) { return r.error_kind() == kind; }));
}

// Runs a normal small job and expects it to finish with correct records from
// the given worker: the worker survived whatever came before.
void ExpectWorkerStillMeasures(Cluster& c, const std::string& worker_id) {
  absl::StatusOr<v1::Job> job = c.Submit(SmallJob("matmul:M=32,N=32,K=32", 3));
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(60));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  absl::StatusOr<std::vector<v1::Record>> records = c.JobRecords(job->id());
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);
  EXPECT_EQ(CountErrorKind(*records, "none"), 3);
  for (const v1::Record& r : *records) EXPECT_EQ(r.worker_id(), worker_id);
}

// Checks the job's records: one per trial, each a distinct task, and
// returns them.
std::vector<v1::Record> FinishedJobRecords(Cluster& c, const v1::JobSpec& spec) {
  absl::StatusOr<v1::Job> job = c.Submit(spec);
  EXPECT_TRUE(job.ok()) << job.status();
  if (!job.ok()) return {};
  absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(90));
  EXPECT_TRUE(done.ok()) << done.status();
  if (!done.ok()) return {};
  EXPECT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  EXPECT_EQ(done->trials_done(), spec.trials());
  absl::StatusOr<std::vector<v1::Record>> records = c.JobRecords(job->id());
  EXPECT_TRUE(records.ok()) << records.status();
  if (!records.ok()) return {};
  EXPECT_EQ(records->size(), static_cast<size_t>(spec.trials()));
  EXPECT_EQ(DistinctTaskIds(*records).size(), static_cast<size_t>(spec.trials()));
  EXPECT_EQ(done->errors(), static_cast<int>(records->size()) - CountErrorKind(*records, "none"));
  return *records;
}

TEST(CandidateFailureTest, HangingCandidateCostsOneTimeoutRecord) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  absl::StatusOr<int> w = c.StartWorker();
  ASSERT_TRUE(w.ok()) << w.status();

  // 2.7e8 flops in 1 ms would take 270 GFLOPS on one thread, past any CPU
  // core's fp32 peak: the candidates run past the deadline. (At 10 ms, 27
  // GFLOPS, random schedules on an AVX-512 Zen 4 all finished in time. The
  // reference has its own, long deadline.)
  v1::JobSpec spec = SmallJob("matmul:M=512,N=512,K=512", 4, 4);
  spec.mutable_measure()->set_timeout_s(0.001);
  std::vector<v1::Record> records = FinishedJobRecords(c, spec);
  ASSERT_FALSE(records.empty());
  EXPECT_GE(CountErrorKind(records, "timeout"), 1);
  for (const v1::Record& r : records) {
    if (r.error_kind() == "timeout") {
      EXPECT_FALSE(r.error().empty());
    }
    EXPECT_EQ(r.worker_id(), c.worker(*w).id);
  }
  EXPECT_TRUE(c.worker(*w).process->Running());
  ExpectWorkerStillMeasures(c, c.worker(*w).id);
}

// A kernel that crashes: the worker's runner gets SIGSEGV while it runs a
// candidate (a real segfault in generated code ends the runner the same
// way). That candidate gets one runtime_crash record; the worker measures
// the rest of the job and the next one.
TEST(CandidateFailureTest, CrashingCandidateCostsOneRuntimeCrashRecord) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  absl::StatusOr<int> w = c.StartWorker();
  ASSERT_TRUE(w.ok()) << w.status();

  // Each candidate is timed for at least 1.5 s: long enough to hit it.
  v1::JobSpec spec = SmallJob("matmul:M=128,N=128,K=128", 3, 3);
  spec.mutable_measure()->set_min_repeat_ms(1500);
  spec.mutable_measure()->set_repeat(1);
  absl::StatusOr<v1::Job> job = c.Submit(spec);
  ASSERT_TRUE(job.ok()) << job.status();

  // Wait for a runner that is busy (its CPU time grows), then crash it.
  ASSERT_TRUE(SegfaultABusyRunner(c.worker(*w).process->pid(), absl::Seconds(60)))
      << "no busy runner was found under the worker";

  absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(90));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  absl::StatusOr<std::vector<v1::Record>> records = c.JobRecords(job->id());
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);
  std::string kinds;
  for (const v1::Record& r : *records) kinds += r.error_kind() + " (" + r.error() + "); ";
  EXPECT_EQ(CountErrorKind(*records, "runtime_crash"), 1) << kinds;
  for (const v1::Record& r : *records)
    if (r.error_kind() == "runtime_crash") {
      EXPECT_THAT(r.error(), ::testing::HasSubstr("SIGSEGV"));
    }
  EXPECT_TRUE(c.worker(*w).process->Running());
  ExpectWorkerStillMeasures(c, c.worker(*w).id);
}

TEST(CandidateFailureTest, OutOfMemoryCandidateCostsOneRecord) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  absl::StatusOr<int> w = c.StartWorker();
  ASSERT_TRUE(w.ok()) << w.status();

  // C is 1e10 floats (40 GB): its allocation fails under the runner's
  // memory limit before anything is touched.
  v1::JobSpec spec = SmallJob("matmul:M=100000,N=100000,K=1", 2, 2);
  std::vector<v1::Record> records = FinishedJobRecords(c, spec);
  ASSERT_EQ(records.size(), 2u);
  for (const v1::Record& r : records) {
    EXPECT_EQ(r.error_kind(), "out_of_memory") << r.error();
    EXPECT_THAT(r.error(), ::testing::HasSubstr("allocate"));
  }
  EXPECT_TRUE(c.worker(*w).process->Running());
  ExpectWorkerStillMeasures(c, c.worker(*w).id);
}

}  // namespace
}  // namespace tuneforge::service_test
