// kill -9 the server mid-job and start it again on the same database: the
// job resumes and completes; every record stored before the kill is still
// there and none is stored twice. A clean restart keeps finished jobs and
// what the learned search options learned.
#include <signal.h>

#include <iostream>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "search/learned_search_state.h"
#include "server/marshal/to_proto.h"
#include "server/record_store/record_store.h"
#include "tests/service/harness.h"

namespace tuneforge::service_test {
namespace {

// What the database file holds for the job, read while no server runs.
absl::StatusOr<std::vector<v1::Record>> RecordsInDatabase(const std::string& db_path,
                                                          const std::string& job_id) {
  absl::StatusOr<std::unique_ptr<server::RecordStore>> store = server::RecordStore::Open(db_path);
  if (!store.ok()) return store.status();
  server::RecordFilter filter;
  filter.job_id = job_id;
  filter.limit = 10000;
  absl::StatusOr<std::vector<server::Record>> records = (*store)->Query(filter);
  if (!records.ok()) return records.status();
  std::vector<v1::Record> out;
  for (const server::Record& r : *records) out.push_back(server::ToProto(r));
  return out;
}

TEST(ServerRestartTest, KilledServerResumesTheJobWithoutLosingRecords) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  ASSERT_TRUE(c.StartWorker().ok());
  ASSERT_TRUE(c.StartWorker().ok());

  constexpr int kTrials = 24;
  v1::JobSpec spec = SmallJob("matmul:M=32,N=32,K=32", kTrials, 8);
  spec.mutable_measure()->set_min_repeat_ms(100);  // >= 100 ms a candidate: time to kill mid-job
  absl::StatusOr<v1::Job> job = c.Submit(spec);
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<v1::Job> partway = c.WaitForTrials(job->id(), 4, absl::Seconds(60));
  ASSERT_TRUE(partway.ok()) << partway.status();

  c.StopServer(SIGKILL);
  absl::StatusOr<std::vector<v1::Record>> before = RecordsInDatabase(c.db_path(), job->id());
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_GE(before->size(), 4u);
  ASSERT_LT(before->size(), static_cast<size_t>(kTrials)) << "the job ended before the kill";

  ASSERT_TRUE(c.StartServer().ok());
  // The job survived the restart, unfinished.
  absl::StatusOr<v1::Job> resumed = c.GetJob(job->id());
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->trials_total(), kTrials);
  EXPECT_GE(resumed->trials_done(), static_cast<int>(before->size()));

  // The workers find the new server by themselves (they reconnect).
  absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(90));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  EXPECT_EQ(done->trials_done(), kTrials);

  absl::StatusOr<std::vector<v1::Record>> after = c.JobRecords(job->id());
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->size(), static_cast<size_t>(kTrials));
  EXPECT_EQ(DistinctTaskIds(*after).size(), static_cast<size_t>(kTrials)) << "a task was stored twice";
  std::map<int64_t, v1::Record> by_id;
  for (const v1::Record& r : *after) by_id[r.id()] = r;
  for (const v1::Record& r : *before) {
    auto it = by_id.find(r.id());
    ASSERT_NE(it, by_id.end()) << "record " << r.id() << " (task " << r.task_id() << ") lost in the restart";
    EXPECT_EQ(it->second.task_id(), r.task_id());
    EXPECT_EQ(it->second.schedule_json(), r.schedule_json());
    // A record re-timed after the restart keeps its first session's
    // repeats and adds the new ones; one the job's final comparison timed
    // keeps only the comparison's; any other is unchanged.
    const v1::Record& now = it->second;
    if (now.compared_at_unix_ms() > 0) {
      EXPECT_GE(now.timings(), 2);  // its first session, and the comparison's
    } else if (now.timings() > 1) {
      ASSERT_GE(now.repeat_seconds_size(), r.repeat_seconds_size());
      for (int i = 0; i < r.repeat_seconds_size(); ++i) EXPECT_EQ(now.repeat_seconds(i), r.repeat_seconds(i));
    } else {
      EXPECT_EQ(now.median_seconds(), r.median_seconds());
    }
  }
}

TEST(ServerRestartTest, FinishedJobAndItsBestSurviveACleanRestart) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  ASSERT_TRUE(c.StartWorker().ok());
  v1::JobSpec spec = SmallJob("matmul:M=32,N=32,K=32", 4);
  spec.set_neighbour_share(0);  // Ansor's search alone: a 0 that is set, not the default
  absl::StatusOr<v1::Job> job = c.Submit(spec);
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(60));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();

  c.StopServer(SIGTERM);
  ASSERT_TRUE(c.server().wait_status());
  ASSERT_TRUE(c.StartServer().ok());
  absl::StatusOr<v1::Job> again = c.GetJob(job->id());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->state(), v1::JOB_STATE_DONE);
  EXPECT_EQ(again->trials_done(), 4);
  EXPECT_DOUBLE_EQ(again->best_gflops(), done->best_gflops());
  EXPECT_TRUE(again->spec().has_neighbour_share()) << "the job's options come back with it";
  EXPECT_EQ(again->spec().neighbour_share(), 0);
  absl::StatusOr<std::vector<v1::Record>> records = c.JobRecords(job->id());
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(records->size(), 4u);
}

struct LearnedCounts {
  int64_t bandit_measured = 0;     // the workload's sketch contest: programs measured
  int64_t mutation_outcomes = 0;   // what the predictor was taught
};

// What the device's learned search state counts, read from the database
// while no server runs.
absl::StatusOr<LearnedCounts> LearnedCountsInDatabase(const std::string& db_path, const std::string& workload_key) {
  absl::StatusOr<std::unique_ptr<server::RecordStore>> store = server::RecordStore::Open(db_path);
  if (!store.ok()) return store.status();
  absl::StatusOr<std::optional<std::string>> bytes = (*store)->LoadLearnedSearchState(kTestDeviceKey);
  if (!bytes.ok()) return bytes.status();
  if (!*bytes) return absl::NotFoundError("no learned search state saved for the device");
  search::LearnedSearchState state;
  if (absl::Status s = state.Load(**bytes); !s.ok()) return s;
  LearnedCounts counts;
  if (std::optional<search::SketchBandit> bandit = state.bandit(workload_key))
    for (int k = 0; k < bandit->num_sketches(); ++k) counts.bandit_measured += bandit->measured(k);
  search::MutationPredictor predictor = state.mutation_predictor();
  for (int k = 0; k < search::kNumMutationKinds; ++k)
    counts.mutation_outcomes += predictor.outcomes(static_cast<search::MutationKind>(k));
  return counts;
}

// Both learned options keep what they learned across a server restart: the
// second server's job adds to the first one's sketch contest and mutation
// predictor rather than starting them over.
TEST(ServerRestartTest, TheLearnedSearchOptionsGoOnFromTheirStateAfterARestart) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Cluster& c = **cluster;
  ASSERT_TRUE(c.StartWorker().ok());
  auto learned_job = [](int trials) {
    v1::JobSpec spec = SmallJob("matmul:M=32,N=32,K=32", trials, 8);
    spec.set_sketch_selection("learned");
    spec.set_mutation_choice("learned");
    return spec;
  };
  absl::StatusOr<v1::Job> job = c.Submit(learned_job(40));
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(120));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  absl::StatusOr<std::vector<v1::Record>> records = c.JobRecords(job->id());
  ASSERT_TRUE(records.ok() && !records->empty()) << records.status();
  const std::string workload_key = records->front().workload_key();

  c.StopServer(SIGTERM);
  absl::StatusOr<LearnedCounts> first = LearnedCountsInDatabase(c.db_path(), workload_key);
  ASSERT_TRUE(first.ok()) << first.status();
  const LearnedCounts before = *first;
  EXPECT_GE(before.bandit_measured, 32);  // the first round is random samples of the sketches too
  EXPECT_GT(before.mutation_outcomes, 0);

  ASSERT_TRUE(c.StartServer().ok());
  absl::StatusOr<v1::Job> second = c.Submit(learned_job(8));
  ASSERT_TRUE(second.ok()) << second.status();
  done = c.WaitForJobEnd(second->id(), absl::Seconds(120));
  ASSERT_TRUE(done.ok()) << done.status();
  ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  c.StopServer(SIGTERM);
  absl::StatusOr<LearnedCounts> after = LearnedCountsInDatabase(c.db_path(), workload_key);
  ASSERT_TRUE(after.ok()) << after.status();
  const LearnedCounts now = *after;
  // Started over, the 8-trial job could not have counted past the first's.
  EXPECT_GT(now.bandit_measured, before.bandit_measured);
  EXPECT_GT(now.mutation_outcomes, before.mutation_outcomes);
  std::cout << "bandit measured " << before.bandit_measured << " -> " << now.bandit_measured
            << "; mutation outcomes " << before.mutation_outcomes << " -> " << now.mutation_outcomes << "\n";
}

}  // namespace
}  // namespace tuneforge::service_test
