// A job measured by two workers completes; its best is queryable from the
// CLI through the server and straight from the database file.
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/service/harness.h"

namespace tuneforge::service_test {
namespace {

using ::testing::UnorderedElementsAre;

TEST(JobCompletionTest, TwoWorkersCompleteAJobAndItsBestIsQueryable) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  absl::StatusOr<int> w0 = c.StartWorker();
  ASSERT_TRUE(w0.ok()) << w0.status();
  absl::StatusOr<int> w1 = c.StartWorker();
  ASSERT_TRUE(w1.ok()) << w1.status();

  // Slow enough per candidate (>= 40 ms) that one worker cannot take all.
  v1::JobSpec spec = SmallJob(kMatmul32, 24, 8);
  spec.mutable_measure()->set_min_repeat_ms(40);
  absl::StatusOr<v1::Job> submitted = c.Submit(spec);
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  EXPECT_EQ(submitted->trials_total(), 24);
  absl::StatusOr<v1::Job> job = c.WaitForJobEnd(submitted->id(), absl::Seconds(90));
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_EQ(job->state(), v1::JOB_STATE_DONE) << job->error();
  EXPECT_EQ(job->trials_done(), 24);
  EXPECT_GT(job->best_gflops(), 0);

  absl::StatusOr<std::vector<v1::Record>> records = c.JobRecords(job->id());
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(records->size(), 24u);
  EXPECT_EQ(DistinctTaskIds(*records).size(), 24u);
  EXPECT_THAT(DistinctWorkerIds(*records), UnorderedElementsAre(c.worker(*w0).id, c.worker(*w1).id));
  for (const v1::Record& r : *records) {
    EXPECT_EQ(r.device_key(), kTestDeviceKey);
    EXPECT_EQ(r.job_id(), job->id());
    EXPECT_FALSE(r.schedule_json().empty());
  }

  // The CLI through the server.
  CliResult best = c.RunCliOnServer({"best", kMatmul32, "--target", kTestDeviceKey});
  ASSERT_EQ(best.exit_code, 0) << best.err;
  ASSERT_TRUE(best.json.is_object()) << best.out;
  EXPECT_TRUE(best.json["found"].get<bool>());
  EXPECT_NEAR(best.json["gflops"].get<double>(), job->best_gflops(), 1e-6 * job->best_gflops());
  EXPECT_GT(best.json["seconds"].get<double>(), 0);
  EXPECT_FALSE(best.json["schedule"].dump().empty());
  // The winner was timed again by a real worker (re-timing is on by default).
  EXPECT_GE(best.json["timings"].get<int>(), 2);
  int retimed = 0;
  for (const v1::Record& r : *records) retimed += r.timings() >= 2 ? 1 : 0;
  EXPECT_GE(retimed, 3);
  // The job ended by timing its leaders side by side; its best is one of them.
  int compared = 0;
  bool best_compared = false;
  for (const v1::Record& r : *records) {
    if (r.compared_at_unix_ms() == 0) continue;
    ++compared;
    best_compared |= std::abs(r.gflops() - job->best_gflops()) <= 1e-6 * job->best_gflops();
  }
  EXPECT_GE(compared, 2);
  EXPECT_TRUE(best_compared);

  // The same answer from the database file (WAL: readable while the server runs).
  CliResult from_db = c.RunCli({"best", kMatmul32, "--target", kTestDeviceKey, "--db", c.db_path(), "--json"});
  ASSERT_EQ(from_db.exit_code, 0) << from_db.err;
  ASSERT_TRUE(from_db.json.is_object()) << from_db.out;
  EXPECT_TRUE(from_db.json["found"].get<bool>());
  EXPECT_DOUBLE_EQ(from_db.json["gflops"].get<double>(), best.json["gflops"].get<double>());
  EXPECT_EQ(from_db.json["schedule"], best.json["schedule"]);

  // The job as the CLI shows it.
  CliResult status = c.RunCliOnServer({"status", job->id()});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.json["job"], job->id());
  EXPECT_EQ(status.json["state"], "done");
  EXPECT_EQ(status.json["trials_done"], 24);
  EXPECT_EQ(status.json["trials_total"], 24);
}

}  // namespace
}  // namespace tuneforge::service_test
