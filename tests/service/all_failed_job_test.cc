// A job in which every candidate failed ends without a best: it says so
// (Job.no_candidate_succeeded), and `tuneforge watch` and the embedded
// `tuneforge tune` exit non-zero naming it, instead of reporting success.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/service/harness.h"

namespace tuneforge::service_test {
namespace {

using ::testing::HasSubstr;

// 2.7e8 flops in 1 ms would take 270 GFLOPS on one thread, which no
// schedule of a 512^3 matmul reaches here: every candidate times out.
constexpr char kMatmul512[] = "matmul:M=512,N=512,K=512";
constexpr double kTimeoutS = 0.001;

TEST(AllFailedJobTest, WatchExitsNonZeroWhenNoCandidateSucceeded) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  ASSERT_TRUE(c.StartWorker().ok());
  v1::JobSpec spec = SmallJob(kMatmul512, 3, 3);
  spec.mutable_measure()->set_timeout_s(kTimeoutS);
  absl::StatusOr<v1::Job> job = c.Submit(spec);
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(120));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  EXPECT_EQ(done->trials_done(), 3);
  EXPECT_EQ(done->errors(), 3);
  EXPECT_EQ(done->best_gflops(), 0);
  EXPECT_TRUE(done->no_candidate_succeeded());

  CliResult watch = c.RunCliOnServer({"watch", job->id()});
  EXPECT_NE(watch.exit_code, 0) << watch.out;
  EXPECT_GT(watch.exit_code, 0) << "ended by a signal: " << watch.err;
  EXPECT_THAT(watch.out + watch.err, HasSubstr("no candidate succeeded"));

  // A job with a correct candidate still exits 0.
  absl::StatusOr<v1::Job> fine = c.Submit(SmallJob("matmul:M=32,N=32,K=32", 2, 2));
  ASSERT_TRUE(fine.ok()) << fine.status();
  CliResult ok = c.RunCliOnServer({"watch", fine->id()}, absl::Seconds(90));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

TEST(AllFailedJobTest, EmbeddedTuneExitsNonZeroWhenNoCandidateSucceeded) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  CliResult tune = c.RunCli({"tune", kMatmul512, "--trials", "2", "--batch", "2", "--policy", "random",
                             "--threads", "1", "--number", "1", "--repeat", "1", "--timeout", "0.001",
                             "--db", c.dir() + "/embedded.db", "--json"},
                            absl::Seconds(180));
  EXPECT_GT(tune.exit_code, 0) << tune.out << tune.err;
  EXPECT_THAT(tune.out + tune.err, HasSubstr("no candidate succeeded"));
}

}  // namespace
}  // namespace tuneforge::service_test
