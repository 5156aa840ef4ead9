// Workers that go away while they hold leases: killed (kill -9: the server
// notices the missed heartbeats and leases the tasks again) or stopped
// (SIGTERM: the worker returns its leases at once).
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/service/harness.h"

namespace tuneforge::service_test {
namespace {

// Candidates that take about a second each (2 repeats of >= 500 ms), so a
// worker holds its leases for a while.
v1::JobSpec SlowJob(int trials) {
  v1::JobSpec spec = SmallJob(kMatmul32, trials, trials);
  spec.mutable_measure()->set_repeat(2);
  spec.mutable_measure()->set_min_repeat_ms(500);
  return spec;
}

// Waits until the worker holds at least one leased task.
absl::StatusOr<int> WaitForLeases(Cluster& c, const std::string& worker_id, absl::Duration timeout) {
  absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    absl::StatusOr<v1::WorkerStatus> w = c.WorkerStatus(worker_id);
    if (!w.ok()) return w.status();
    if (w->leases() > 0) return w->leases();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError("the worker leased nothing in time");
}

int CountErrorKind(const std::vector<v1::Record>& records, const std::string& kind) {
  return static_cast<int>(std::count_if(records.begin(), records.end(),
                                        [&](const v1::Record& r) { return r.error_kind() == kind; }));
}

int CountByWorker(const std::vector<v1::Record>& records, const std::string& worker_id) {
  return static_cast<int>(std::count_if(records.begin(), records.end(),
                                        [&](const v1::Record& r) { return r.worker_id() == worker_id; }));
}

TEST(WorkerFailureTest, KilledWorkersLeasesGoToTheOtherWorker) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  absl::StatusOr<int> doomed = c.StartWorker();
  ASSERT_TRUE(doomed.ok()) << doomed.status();
  const std::string doomed_id = c.worker(*doomed).id;

  constexpr int kTrials = 6;
  absl::StatusOr<v1::Job> job = c.Submit(SlowJob(kTrials));
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<int> held = WaitForLeases(c, doomed_id, absl::Seconds(30));
  ASSERT_TRUE(held.ok()) << held.status();
  absl::StatusOr<int> survivor = c.StartWorker();
  ASSERT_TRUE(survivor.ok()) << survivor.status();

  // Still holding leases now: kill it without a chance to return them.
  absl::StatusOr<v1::WorkerStatus> before_kill = c.WorkerStatus(doomed_id);
  ASSERT_TRUE(before_kill.ok()) << before_kill.status();
  ASSERT_GT(before_kill->leases(), 0);
  c.worker(*doomed).process->Signal(SIGKILL);
  ASSERT_TRUE(c.worker(*doomed).process->Wait(absl::Seconds(5)));
  absl::StatusOr<std::vector<v1::Record>> at_kill = c.JobRecords(job->id());
  ASSERT_TRUE(at_kill.ok()) << at_kill.status();
  ASSERT_LT(static_cast<int>(at_kill->size()), kTrials) << "the job ended before the kill";

  absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(90));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  EXPECT_EQ(done->trials_done(), kTrials);

  absl::StatusOr<std::vector<v1::Record>> records = c.JobRecords(job->id());
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(records->size(), static_cast<size_t>(kTrials));
  EXPECT_EQ(DistinctTaskIds(*records).size(), static_cast<size_t>(kTrials)) << "a task was stored twice";
  EXPECT_EQ(CountErrorKind(*records, "worker_lost"), 0);
  // The dead worker's tasks were measured by the survivor: nothing of the
  // dead one's was stored after it died.
  EXPECT_EQ(CountByWorker(*records, doomed_id), CountByWorker(*at_kill, doomed_id));
  EXPECT_EQ(CountByWorker(*records, doomed_id) + CountByWorker(*records, c.worker(*survivor).id), kTrials);

  // The server knows the killed worker is gone (lost, or forgotten).
  absl::StatusOr<v1::WorkerStatus> after = c.WorkerStatus(doomed_id);
  if (after.ok()) {
    EXPECT_EQ(after->state(), "lost");
    EXPECT_EQ(after->leases(), 0);
  } else {
    EXPECT_EQ(after.status().code(), absl::StatusCode::kNotFound) << after.status();
  }
}

TEST(WorkerFailureTest, TerminatedWorkerReturnsItsLeasesAtOnce) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  absl::StatusOr<int> leaving = c.StartWorker();
  ASSERT_TRUE(leaving.ok()) << leaving.status();
  const std::string leaving_id = c.worker(*leaving).id;

  constexpr int kTrials = 6;
  absl::StatusOr<v1::Job> job = c.Submit(SlowJob(kTrials));
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_TRUE(WaitForLeases(c, leaving_id, absl::Seconds(30)).ok());
  absl::StatusOr<int> staying = c.StartWorker();
  ASSERT_TRUE(staying.ok()) << staying.status();
  const std::string staying_id = c.worker(*staying).id;
  absl::StatusOr<v1::WorkerStatus> before = c.WorkerStatus(leaving_id);
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_GT(before->leases(), 0);
  absl::StatusOr<std::vector<v1::WorkerStatus>> listed = c.ListWorkers();
  ASSERT_TRUE(listed.ok());

  absl::Time terminated = absl::Now();
  c.worker(*leaving).process->Signal(SIGTERM);
  std::optional<int> exit = c.worker(*leaving).process->Wait(absl::Seconds(10));
  ASSERT_TRUE(exit) << "the worker did not exit within 10 s of SIGTERM";
  EXPECT_TRUE(WIFEXITED(*exit) && WEXITSTATUS(*exit) == 0) << DescribeWaitStatus(*exit);

  // Deregistered: no longer alive with leases, well before the heartbeat
  // timeout (3 missed 2 s heartbeats) could have declared it lost.
  absl::StatusOr<v1::WorkerStatus> after = c.WorkerStatus(leaving_id);
  if (after.ok()) {
    EXPECT_NE(after->state(), "alive");
    EXPECT_EQ(after->leases(), 0);
  } else {
    EXPECT_EQ(after.status().code(), absl::StatusCode::kNotFound) << after.status();
  }
  EXPECT_LT(absl::Now() - terminated, absl::Seconds(5));

  absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(90));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  absl::StatusOr<std::vector<v1::Record>> records = c.JobRecords(job->id());
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(records->size(), static_cast<size_t>(kTrials));
  EXPECT_EQ(DistinctTaskIds(*records).size(), static_cast<size_t>(kTrials));
  EXPECT_EQ(CountErrorKind(*records, "worker_lost"), 0);
  EXPECT_EQ(CountByWorker(*records, leaving_id) + CountByWorker(*records, staying_id), kTrials);
  EXPECT_GT(CountByWorker(*records, staying_id), 0);
}

}  // namespace
}  // namespace tuneforge::service_test
