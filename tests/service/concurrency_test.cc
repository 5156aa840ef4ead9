// Eight clients at once, each on its own channel, submitting, listing,
// getting and watching jobs while two workers measure them: everyone sees
// one consistent state.
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/rpc/channel.h"
#include "tests/service/harness.h"

namespace tuneforge::service_test {
namespace {

constexpr int kClients = 8;
constexpr int kJobsPerClient = 2;
constexpr int kTrials = 4;

// One client thread: its own channel and stubs.
class Client {
 public:
  explicit Client(Cluster& c)
      : cluster_(c),
        channel_(c.NewChannel()),
        jobs_(v1::Jobs::NewStub(channel_)),
        records_(v1::Records::NewStub(channel_)) {}

  absl::StatusOr<v1::Job> Submit(int index) {
    v1::SubmitJobRequest request;
    // Different shapes, so jobs do not share one search space.
    *request.mutable_spec() = SmallJob("matmul:M=32,N=32,K=" + std::to_string(16 + index), kTrials);
    v1::SubmitJobResponse response;
    grpc::Status s = jobs_->Submit(cluster_.Context().get(), request, &response);
    if (!s.ok()) return rpc::FromGrpc(s);
    return response.job();
  }

  absl::StatusOr<std::vector<v1::Job>> List() {
    v1::ListJobsRequest request;
    request.set_limit(1000);
    v1::ListJobsResponse response;
    grpc::Status s = jobs_->List(cluster_.Context().get(), request, &response);
    if (!s.ok()) return rpc::FromGrpc(s);
    return std::vector<v1::Job>(response.jobs().begin(), response.jobs().end());
  }

  absl::StatusOr<v1::Job> Get(const std::string& id) {
    v1::GetJobRequest request;
    request.set_id(id);
    v1::GetJobResponse response;
    grpc::Status s = jobs_->Get(cluster_.Context().get(), request, &response);
    if (!s.ok()) return rpc::FromGrpc(s);
    return response.job();
  }

  // The store's fastest record of the workload.
  absl::StatusOr<v1::Record> Best(const std::string& workload_key) {
    v1::BestRequest request;
    request.set_workload_key(workload_key);
    v1::BestResponse response;
    grpc::Status s = records_->Best(cluster_.Context().get(), request, &response);
    if (!s.ok()) return rpc::FromGrpc(s);
    if (!response.found()) return absl::NotFoundError("no best record of " + workload_key);
    return response.record();
  }

  // Follows the job to its end; checks trials_done never goes down and the
  // state never goes back. Returns the last progress.
  absl::StatusOr<v1::Job> Watch(const std::string& id) {
    v1::WatchJobRequest request;
    request.set_id(id);
    auto ctx = cluster_.Context(absl::Seconds(120));
    auto stream = jobs_->Watch(ctx.get(), request);
    v1::JobProgress progress;
    v1::Job last;
    int updates = 0;
    while (stream->Read(&progress)) {
      EXPECT_EQ(progress.job().id(), id);
      EXPECT_GE(progress.job().trials_done(), last.trials_done()) << "trials_done went down in Watch";
      EXPECT_GE(StateRank(progress.job().state()), StateRank(last.state())) << "state went back in Watch";
      last = progress.job();
      ++updates;
    }
    grpc::Status s = stream->Finish();
    if (!s.ok()) return rpc::FromGrpc(s);
    EXPECT_GT(updates, 0);
    return last;
  }

  // Queued < running < finished.
  static int StateRank(v1::JobState state) {
    if (state == v1::JOB_STATE_UNSPECIFIED) return 0;
    if (state == v1::JOB_STATE_QUEUED) return 1;
    if (state == v1::JOB_STATE_RUNNING) return 2;
    return 3;
  }

 private:
  Cluster& cluster_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Jobs::Stub> jobs_;
  std::unique_ptr<v1::Records::Stub> records_;
};

// What one List said about a job must not be ahead of a Get made after it.
void ExpectGetNotBehindList(Client& client, const v1::Job& listed) {
  absl::StatusOr<v1::Job> got = client.Get(listed.id());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->spec().SerializeAsString(), listed.spec().SerializeAsString());
  EXPECT_EQ(got->trials_total(), listed.trials_total());
  EXPECT_GE(got->trials_done(), listed.trials_done());
  EXPECT_GE(Client::StateRank(got->state()), Client::StateRank(listed.state()));
}

TEST(ConcurrencyTest, EightClientsSeeConsistentState) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  ASSERT_TRUE(c.StartWorker().ok());
  ASSERT_TRUE(c.StartWorker().ok());

  std::mutex mu;
  std::set<std::string> submitted;
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      Client client(c);
      std::vector<std::string> mine;
      for (int j = 0; j < kJobsPerClient; ++j) {
        absl::StatusOr<v1::Job> job = client.Submit(t * kJobsPerClient + j);
        ASSERT_TRUE(job.ok()) << job.status();
        EXPECT_EQ(job->trials_total(), kTrials);
        mine.push_back(job->id());
        std::lock_guard<std::mutex> lock(mu);
        EXPECT_TRUE(submitted.insert(job->id()).second) << "job id given twice: " << job->id();
      }
      // Our own jobs are listed at once, and Get never lags behind List.
      absl::StatusOr<std::vector<v1::Job>> listed = client.List();
      ASSERT_TRUE(listed.ok()) << listed.status();
      std::set<std::string> ids;
      for (const v1::Job& job : *listed) {
        ids.insert(job.id());
        ExpectGetNotBehindList(client, job);
      }
      for (const std::string& id : mine) EXPECT_TRUE(ids.count(id)) << id << " not listed";
      for (const std::string& id : mine) {
        absl::StatusOr<v1::Job> last = client.Watch(id);
        ASSERT_TRUE(last.ok()) << last.status();
        EXPECT_EQ(last->state(), v1::JOB_STATE_DONE) << last->error();
        EXPECT_EQ(last->trials_done(), kTrials);
        // A finished job is final: every result, its re-timings too, was
        // counted before Watch said it ended, so its best is the store's
        // (each job has a workload of its own) and it changes no more.
        absl::StatusOr<v1::Record> best = client.Best(last->best_workload_key());
        ASSERT_TRUE(best.ok()) << best.status();
        EXPECT_EQ(last->best_seconds(), best->median_seconds()) << id << " ended before its last re-timing counted";
        EXPECT_EQ(last->best_schedule_json(), best->schedule_json());
        absl::StatusOr<v1::Job> after = client.Get(id);
        ASSERT_TRUE(after.ok()) << after.status();
        EXPECT_EQ(after->SerializeAsString(), last->SerializeAsString()) << id << " changed after it finished";
      }
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(submitted.size(), static_cast<size_t>(kClients * kJobsPerClient));

  // Finally: every job listed once, done, agreeing with Get and its records.
  Client client(c);
  absl::StatusOr<std::vector<v1::Job>> all = client.List();
  ASSERT_TRUE(all.ok()) << all.status();
  std::map<std::string, v1::Job> by_id;
  for (const v1::Job& job : *all) EXPECT_TRUE(by_id.emplace(job.id(), job).second) << "listed twice";
  EXPECT_EQ(by_id.size(), submitted.size());
  for (const std::string& id : submitted) {
    ASSERT_TRUE(by_id.count(id)) << id << " not listed";
    absl::StatusOr<v1::Job> got = client.Get(id);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->SerializeAsString(), by_id[id].SerializeAsString());
    absl::StatusOr<std::vector<v1::Record>> records = c.JobRecords(id);
    ASSERT_TRUE(records.ok()) << records.status();
    EXPECT_EQ(records->size(), static_cast<size_t>(kTrials));
  }
}

}  // namespace
}  // namespace tuneforge::service_test
