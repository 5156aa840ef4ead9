// The server core (JobManager + Dispatcher) on a real record store: jobs run
// to exactly their trial count, share workers, survive lost workers and a
// restart, and reject bad specs with field-naming errors. Workers here are
// the Dispatcher's own calls made by the test (no kernels run).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/core/build_deadline.h"
#include "server/core/dispatcher.h"
#include "server/core/job_manager.h"
#include "server/core/service_constants.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {
namespace {

// A busy comparison's pause before the next (JobManagerOptions): long enough
// to tell from back to back, short for a test.
constexpr absl::Duration kCompareAgainAfterInTests = absl::Milliseconds(300);

bool Unfinished(JobState state) { return state == JobState::kQueued || state == JobState::kRunning; }

using ::testing::HasSubstr;

constexpr char kCoreTestDevice[] = "test-dev";

class CoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tf_core_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    Start();
  }
  void TearDown() override {
    Stop();
    std::filesystem::remove_all(dir_);
  }

  void Start(DispatcherOptions options = {}) {
    auto store = RecordStore::Open((dir_ / "t.db").string());
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    dispatcher_ = Dispatcher::Create(store_.get(), options);
    JobManagerOptions job_options;
    job_options.compare_again_after = kCompareAgainAfterInTests;
    auto jobs = JobManager::Create(store_.get(), dispatcher_.get(), job_options);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_ = *std::move(jobs);
    dispatcher_->SetResultSink(jobs_.get());
  }
  // What a crash leaves: the database. In-memory state is gone.
  void Stop() {
    if (jobs_) jobs_->Shutdown();
    if (dispatcher_) dispatcher_->Shutdown();
    jobs_.reset();
    dispatcher_.reset();
    store_.reset();
  }

  JobSpec Spec(int trials, int batch = 8, const std::string& spec = "matmul:M=16,N=16,K=16") {
    JobSpec s;
    s.workloads.push_back(WorkloadSource::Spec(spec));
    s.device_key = kCoreTestDevice;
    s.trials = trials;
    s.batch_size = batch;
    // These tests time leases and rounds; random search proposes at once
    // (the Ansor policy's rounds are tested in tests/search).
    s.policy = "random";
    // Counting tests count trials; re-timing has its own tests below.
    s.retime_top = -1;
    return s;
  }

  // A job of `trials` that re-times its fastest 3 per round and ends with
  // the final comparison (spec retime_top 0: the default).
  std::string SubmitRetimed(int trials) {
    JobSpec spec = Spec(trials);
    spec.retime_top = 0;
    auto job = jobs_->Submit(spec);
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? job->id : "";
  }

  std::string RegisterWorker() {
    DeviceInfo d;
    d.device_key = kCoreTestDevice;
    d.can_build = true;
    auto r = dispatcher_->Register(d);
    EXPECT_TRUE(r.ok());
    return r->worker_id;
  }

  // Leases and reports everything until the job finishes (or nothing comes).
  int Drain(const std::string& worker, const std::string& job_id, int max_leases = 1000) {
    int reported = 0;
    for (int i = 0; i < max_leases; ++i) {
      auto job = jobs_->Get(job_id);
      if (!Unfinished(job->state)) break;
      auto lease = dispatcher_->Lease(worker, 8, 2000);
      if (!lease.ok() || lease->tasks.empty()) continue;
      reported += Report(worker, *lease);
    }
    return reported;
  }

  int Report(const std::string& worker, const LeaseGrant& lease, double seconds = 1e-3) {
    WorkerReport req{worker, lease.lease_id, {}};
    for (const MeasureTask& t : lease.tasks) req.results.push_back({t.task_id, Measured(seconds)});
    auto resp = dispatcher_->Report(req);
    EXPECT_TRUE(resp.ok()) << resp.status();
    return resp.ok() ? resp->accepted : 0;
  }

  static measure::MeasureResult Measured(double seconds) {
    measure::MeasureResult r;
    r.correct = true;
    r.median_seconds = seconds;
    r.repeat_seconds = {seconds};
    return r;
  }

  std::vector<Record> Records(const std::string& job_id) {
    RecordFilter f;
    f.job_id = job_id;
    f.limit = 10000;
    auto r = store_->Query(f);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : std::vector<Record>{};
  }

  // Leases and reports until the job ends, timing each task as `seconds`
  // says; returns the tasks in the order they were leased.
  std::vector<MeasureTask> Answer(const std::string& job_id, const std::function<double(const MeasureTask&)>& seconds) {
    std::string worker = RegisterWorker();
    std::vector<MeasureTask> leased;
    for (int i = 0; i < 300 && Unfinished(jobs_->Get(job_id)->state); ++i) {
      auto lease = dispatcher_->Lease(worker, 64, 500);
      if (!lease.ok() || lease->tasks.empty()) continue;
      WorkerReport req{worker, lease->lease_id, {}};
      for (const MeasureTask& t : lease->tasks) {
        req.results.push_back({t.task_id, Measured(seconds(t))});
        leased.push_back(t);
      }
      EXPECT_TRUE(dispatcher_->Report(req).ok());
    }
    return leased;
  }

  // The final comparison's tasks, by stamp (one entry per round).
  static std::map<int64_t, std::vector<MeasureTask>> ComparisonRounds(const std::vector<MeasureTask>& leased) {
    std::map<int64_t, std::vector<MeasureTask>> rounds;
    for (const MeasureTask& t : leased)
      if (t.compared_at_unix_ms != 0) rounds[t.compared_at_unix_ms].push_back(t);
    return rounds;
  }

  static std::set<std::string> TaskIds(const std::vector<Record>& records) {
    std::set<std::string> ids;
    for (const Record& r : records) ids.insert(r.task_id);
    return ids;
  }

  std::filesystem::path dir_;
  std::unique_ptr<RecordStore> store_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<JobManager> jobs_;
};

TEST_F(CoreTest, JobRunsToExactlyItsTrialCount) {
  auto job = jobs_->Submit(Spec(20));
  ASSERT_TRUE(job.ok()) << job.status();
  std::string worker = RegisterWorker();
  EXPECT_EQ(Drain(worker, job->id), 20);
  auto done = jobs_->Get(job->id);
  EXPECT_EQ(done->state, JobState::kDone);
  EXPECT_EQ(done->trials_done, 20);
  EXPECT_GT(done->best_gflops, 0);
  EXPECT_THAT(done->best_schedule_json, HasSubstr("\"workload\""));
  std::vector<Record> records = Records(job->id);
  EXPECT_EQ(records.size(), 20u);
  EXPECT_EQ(TaskIds(records).size(), 20u);
  for (const Record& r : records) {
    EXPECT_EQ(r.worker_id, worker);
    EXPECT_EQ(r.device_key, kCoreTestDevice);
    EXPECT_NEAR(r.gflops, 2.0 * 16 * 16 * 16 / 1e-3 / 1e9, 1e-9);
  }
}

TEST_F(CoreTest, TwoJobsShareAWorkerRoundRobin) {
  auto a = jobs_->Submit(Spec(16));
  auto b = jobs_->Submit(Spec(16, 8, "matmul:M=8,N=8,K=8"));
  ASSERT_TRUE(a.ok() && b.ok());
  std::string worker = RegisterWorker();
  // Wait until both first rounds are queued.
  absl::SleepFor(absl::Milliseconds(400));
  auto lease = dispatcher_->Lease(worker, 8, 1000);
  ASSERT_TRUE(lease.ok());
  int from_a = 0, from_b = 0;
  for (const auto& t : lease->tasks) (t.task_id.rfind(a->id, 0) == 0 ? from_a : from_b)++;
  EXPECT_EQ(from_a, 4);
  EXPECT_EQ(from_b, 4);
}

TEST_F(CoreTest, LostWorkersLeasesGoToAnotherWorker) {
  Stop();
  DispatcherOptions fast;
  fast.heartbeat_interval_ms = 50;
  fast.missed_heartbeats_before_lost = 2;
  fast.reaper_period_ms = 20;
  Start(fast);
  auto job = jobs_->Submit(Spec(8));
  std::string dead = RegisterWorker();
  auto lease = dispatcher_->Lease(dead, 8, 2000);
  ASSERT_EQ(lease->tasks.size(), 8);
  std::set<std::string> leased;
  for (const auto& t : lease->tasks) leased.insert(t.task_id);
  // `dead` never speaks again; another worker gets its tasks once it is lost.
  std::string alive = RegisterWorker();
  auto again = dispatcher_->Lease(alive, 8, 2000);
  ASSERT_TRUE(again.ok());
  std::set<std::string> reissued;
  for (const auto& t : again->tasks) reissued.insert(t.task_id);
  EXPECT_EQ(reissued, leased);
  EXPECT_EQ(Report(alive, *again), 8);
  EXPECT_EQ(jobs_->Get(job->id)->state, JobState::kDone);
  // The dead worker's late report changes nothing.
  EXPECT_EQ(Report(dead, *lease), 0);
  EXPECT_EQ(Records(job->id).size(), 8u);
  auto workers = dispatcher_->ListWorkers();
  bool listed_lost = false;
  for (const auto& w : workers) listed_lost |= w.id == dead && w.state == WorkerState::kLost;
  EXPECT_TRUE(listed_lost);
}

TEST_F(CoreTest, TaskOutOfAttemptsIsRecordedAsWorkerLost) {
  Stop();
  DispatcherOptions fast;
  fast.heartbeat_interval_ms = 30;
  fast.missed_heartbeats_before_lost = 2;
  fast.reaper_period_ms = 10;
  fast.max_attempts = 1;
  Start(fast);
  auto job = jobs_->Submit(Spec(4, 4));
  std::string dead = RegisterWorker();
  ASSERT_EQ(dispatcher_->Lease(dead, 8, 2000)->tasks.size(), 4);
  for (int i = 0; i < 100 && Unfinished(jobs_->Get(job->id)->state); ++i)
    absl::SleepFor(absl::Milliseconds(20));
  std::vector<Record> records = Records(job->id);
  ASSERT_EQ(records.size(), 4u);
  for (const Record& r : records) EXPECT_STREQ(measure::ErrorKindName(r.error_kind), "worker_lost");
  EXPECT_EQ(jobs_->Get(job->id)->errors, 4);
}

// With two workers of the key, one lease takes half the queued round, so
// the other worker is not left idle.
TEST_F(CoreTest, WorkersOfAKeyShareARound) {
  auto job = jobs_->Submit(Spec(8));
  std::string a = RegisterWorker();
  std::string b = RegisterWorker();
  for (int i = 0; i < 100 && dispatcher_->Outstanding(job->id) == 0; ++i) absl::SleepFor(absl::Milliseconds(10));
  EXPECT_EQ(dispatcher_->Lease(a, 8, 2000)->tasks.size(), 4);
  EXPECT_EQ(dispatcher_->Lease(b, 8, 2000)->tasks.size(), 4);
}

TEST_F(CoreTest, DeregisterReturnsLeasesAtOnce) {
  auto job = jobs_->Submit(Spec(8));
  std::string leaving = RegisterWorker();
  auto lease = dispatcher_->Lease(leaving, 8, 2000);
  ASSERT_EQ(lease->tasks.size(), 8);
  EXPECT_EQ(*dispatcher_->Deregister(leaving), 8);
  std::string other = RegisterWorker();
  EXPECT_EQ(dispatcher_->Lease(other, 8, 0)->tasks.size(), 8);
  EXPECT_EQ(dispatcher_->Lease(leaving, 8, 0).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CoreTest, CancelStopsAJob) {
  auto job = jobs_->Submit(Spec(100));
  std::string worker = RegisterWorker();
  auto lease = dispatcher_->Lease(worker, 4, 2000);
  ASSERT_GT(lease->tasks.size(), 0);
  auto cancelled = jobs_->Cancel(job->id);
  ASSERT_TRUE(cancelled.ok());
  EXPECT_EQ(cancelled->state, JobState::kCancelled);
  EXPECT_EQ(dispatcher_->Lease(worker, 8, 0)->tasks.size(), 0);
  EXPECT_EQ(Report(worker, *lease), 0);  // its results are not wanted any more
  EXPECT_EQ(jobs_->Cancel(job->id).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(CoreTest, RestartResumesWithoutLosingOrDuplicating) {
  auto job = jobs_->Submit(Spec(24));
  std::string worker = RegisterWorker();
  auto first = dispatcher_->Lease(worker, 8, 2000);
  ASSERT_EQ(Report(worker, *first), 8);
  auto in_flight = dispatcher_->Lease(worker, 8, 2000);  // leased, not reported
  ASSERT_GT(in_flight->tasks.size(), 0);
  Stop();   // the server dies
  Start();  // and comes back on the same database
  auto resumed = jobs_->Get(job->id);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->state, JobState::kQueued);  // until a worker registers again
  EXPECT_EQ(resumed->trials_done, 8);
  ASSERT_EQ(resumed->tasks.size(), 1u);
  EXPECT_EQ(resumed->tasks[0].trials, 8);  // each workload's progress comes back from its records
  EXPECT_DOUBLE_EQ(resumed->tasks[0].best_seconds, 1e-3);
  // The old worker reports its in-flight tasks after the restart: they count.
  EXPECT_EQ(Report(worker, *in_flight), in_flight->tasks.size());
  std::string fresh = RegisterWorker();
  Drain(fresh, job->id);
  EXPECT_EQ(jobs_->Get(job->id)->state, JobState::kDone);
  std::vector<Record> records = Records(job->id);
  EXPECT_EQ(records.size(), 24u);
  EXPECT_EQ(TaskIds(records).size(), 24u);
}

TEST_F(CoreTest, BadSpecsNameTheField) {
  struct Case {
    std::function<void(JobSpec&)> edit;
    std::string message;
  };
  std::vector<Case> cases = {
      {[](JobSpec& s) { s.workloads.clear(); }, "spec.workloads"},
      {[](JobSpec& s) { s.trials = 0; }, "spec.trials must be >= 1"},
      {[](JobSpec& s) { s.device_key = ""; }, "spec.device_key"},
      {[](JobSpec& s) { s.policy = "genetic"; }, "spec.policy"},
      {[](JobSpec& s) { s.workloads[0].text = "matmull:M=1"; }, "spec.workloads[0]"},
      {[](JobSpec& s) { s.measure.repeat = -1; }, "spec.measure.repeat"},
      {[](JobSpec& s) { s.batch_size = 100000; }, "spec.batch_size"},
      {[](JobSpec& s) { s.task_scheduler = "annealing"; }, "spec.task_scheduler: task scheduler: unknown"},
      {[](JobSpec& s) { s.sketch_selection = "bandit"; }, "spec.sketch_selection: unknown sketch selection 'bandit'"},
      {[](JobSpec& s) { s.neighbour_share = 1.5; }, "spec.neighbour_share must be in [0, 1]"},
      {[](JobSpec& s) { s.neighbour_share = std::nan(""); }, "spec.neighbour_share must be in [0, 1]"},
      {[](JobSpec& s) { s.weights = {1, 2}; }, "spec.weights: 2 weights for 1 workloads"},
      {[](JobSpec& s) { s.weights = {0}; }, "spec.weights[0] must be in (0, "},
      {[](JobSpec& s) { s.form_of = {0, 0}; }, "spec.form_of: 2 entries for 1 workloads"},
      {[](JobSpec& s) { s.form_of = {1}; }, "spec.form_of[0] is 1; give 0, or 1 + the index of an earlier"},
      {[](JobSpec& s) {
         s.workloads.push_back(s.workloads[0]);
         s.workloads.push_back(s.workloads[0]);
         s.form_of = {0, 1, 2};  // a form of a form
       },
       "spec.form_of[2] is 2"},
      {[](JobSpec& s) {
         s.workloads.push_back(WorkloadSource::Spec("matmul:M=8,N=8,K=8"));
         s.form_of = {0, 1};
       },
       "is no form of it"},
      {[](JobSpec& s) { s.untuned = {true, false}; }, "spec.untuned: 2 entries for 1 workloads"},
      {[](JobSpec& s) { s.untuned = {true}; }, "spec.untuned[0] is true, but workload 0 has no tuned form"},
      {[](JobSpec& s) {
         s.workloads.push_back(s.workloads[0]);
         s.form_of = {0, 1};
         s.untuned = {true, true};  // neither form tuned
       },
       "spec.untuned[0] is true, but workload 0 has no tuned form"},
  };
  for (const Case& c : cases) {
    JobSpec spec = Spec(10);
    c.edit(spec);
    auto r = jobs_->Submit(spec);
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.message));
  }
  EXPECT_EQ(jobs_->Get("job-nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CoreTest, WatchSeesProgressUntilDone) {
  auto job = jobs_->Submit(Spec(16));
  std::string worker = RegisterWorker();
  std::thread drain([&] { Drain(worker, job->id); });
  uint64_t version = 0;
  int32_t last = -1;
  bool finished = false;
  for (int i = 0; i < 200 && !finished; ++i) {
    auto u = jobs_->WaitForUpdate(job->id, version, absl::Seconds(2));
    ASSERT_TRUE(u.ok());
    EXPECT_GE(u->progress.job.trials_done, last);  // never goes back
    last = u->progress.job.trials_done;
    version = u->version;
    finished = u->finished;
  }
  drain.join();
  EXPECT_TRUE(finished);
  EXPECT_EQ(last, 16);
}

// A worker whose first measurement of one program was lucky: timed again,
// that program is slower, and the job must not crown it.
TEST_F(CoreTest, ReTimesTheFastestAndCrownsOnlyAProgramTimedTwice) {
  JobSpec spec = Spec(16);
  spec.retime_top = 0;  // the default: 3 per workload
  auto job = jobs_->Submit(spec);
  ASSERT_TRUE(job.ok()) << job.status();
  std::string worker = RegisterWorker();
  std::string lucky;  // task id of the program measured fast by luck
  std::map<std::string, double> first_time;
  int retimes = 0;
  int lease_round = 0;
  for (int i = 0; i < 200 && Unfinished(jobs_->Get(job->id)->state); ++i) {
    auto lease = dispatcher_->Lease(worker, 8, 500);
    if (!lease.ok() || lease->tasks.size() == 0) continue;
    WorkerReport req{worker, lease->lease_id, {}};
    for (const MeasureTask& t : lease->tasks) {
      double seconds;
      if (t.retime_of.empty()) {
        // Once the job has a best, a trial is timed less behind it.
        if (!first_time.empty() && lease_round > 0) {
          EXPECT_GT(t.behind.probe_above_s, 0);
          EXPECT_LT(t.behind.probe_above_s, t.behind.slow_above_s);
          EXPECT_GT(t.behind.contend_above_s, 0);
          EXPECT_LT(t.behind.contend_above_s, t.behind.probe_above_s);
        }
        seconds = 1e-3 * (1 + 0.01 * static_cast<double>(first_time.size()));  // no ties
        if (lucky.empty()) {
          lucky = t.task_id;
          seconds = 0.5e-3;
        }
        first_time[t.task_id] = seconds;
      } else {
        ++retimes;
        EXPECT_TRUE(first_time.contains(t.retime_of)) << t.retime_of;
        EXPECT_EQ(t.behind.slow_above_s, 0);  // a leader is timed in full
        EXPECT_EQ(t.behind.probe_above_s, 0);
        EXPECT_EQ(t.behind.contend_above_s, 0);
        seconds = t.retime_of == lucky ? 3e-3 : first_time[t.retime_of];
      }
      req.results.push_back({t.task_id, Measured(seconds)});
    }
    ASSERT_TRUE(dispatcher_->Report(req).ok());
    ++lease_round;
  }
  auto done = jobs_->Get(job->id);
  ASSERT_EQ(done->state, JobState::kDone);
  EXPECT_EQ(done->trials_done, 16);  // re-timings are not trials
  EXPECT_GE(retimes, 3);
  std::vector<Record> records = Records(job->id);
  EXPECT_EQ(records.size(), 16u);
  const Record* best = nullptr;
  for (const Record& r : records) {
    if (r.task_id == lucky) {
      EXPECT_EQ(r.timings, 2);
      EXPECT_DOUBLE_EQ(r.median_seconds, (0.5e-3 + 3e-3) / 2);  // over both sessions
    }
    if (!best || r.median_seconds < best->median_seconds) best = &r;
  }
  ASSERT_NE(best, nullptr);
  EXPECT_NE(best->task_id, lucky);
  EXPECT_GE(best->timings, 2);  // the winner was timed twice at least
  EXPECT_DOUBLE_EQ(done->best_seconds, best->median_seconds);
  EXPECT_EQ(done->best_schedule_json, best->schedule_json);
}

// Program "lucky" measured 0.5 ms at a quiet moment, twice (its first time
// and its re-timing); timed side by side with its rivals it is the slowest.
// The final comparison must crown a rival, in one round, timing each leader
// forwards and then backwards.
TEST_F(CoreTest, TheFinalComparisonCrownsTheFastestAtOneMoment) {
  const std::string id = SubmitRetimed(16);
  ASSERT_FALSE(id.empty());
  std::map<std::string, double> first_time;
  std::string lucky;
  std::vector<MeasureTask> leased = Answer(id, [&](const MeasureTask& t) {
    if (t.retime_of.empty()) {
      double seconds = lucky.empty() ? 0.5e-3 : 1e-3 * (1 + 0.01 * static_cast<double>(first_time.size()));
      if (lucky.empty()) lucky = t.task_id;
      return first_time[t.task_id] = seconds;
    }
    if (t.compared_at_unix_ms != 0 && t.retime_of == lucky) return 1.5e-3;
    return first_time[t.retime_of];
  });
  auto done = jobs_->Get(id);
  ASSERT_EQ(done->state, JobState::kDone);
  EXPECT_EQ(done->trials_done, 16);  // comparisons are not trials

  std::map<int64_t, std::vector<MeasureTask>> rounds = ComparisonRounds(leased);
  ASSERT_EQ(rounds.size(), 1u);  // one comparison
  const std::vector<MeasureTask>& round = rounds.begin()->second;
  ASSERT_EQ(round.size(), 6u);  // three leaders, twice each
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(round[i].retime_of, round[5 - i].retime_of);
  EXPECT_EQ(round[0].retime_of, lucky);  // the fastest by its medians so far
  for (const MeasureTask& t : round) EXPECT_EQ(t.behind.slow_above_s, 0);  // timed in full

  const int64_t stamp = rounds.begin()->first;
  // The job's last tasks: nothing is re-timed after the comparison.
  auto first_compared = std::find_if(leased.begin(), leased.end(),
                                     [](const MeasureTask& t) { return t.compared_at_unix_ms != 0; });
  for (auto t = first_compared; t != leased.end(); ++t) EXPECT_EQ(t->compared_at_unix_ms, stamp) << t->task_id;
  std::vector<Record> records = Records(id);
  const Record* best = nullptr;
  for (const Record& r : records) {
    if (r.task_id == lucky) {
      EXPECT_DOUBLE_EQ(r.median_seconds, 1.5e-3);  // the comparison's alone
      EXPECT_EQ(r.compared_at_unix_ms, stamp);
    }
    if (!best || r.median_seconds < best->median_seconds) best = &r;
  }
  ASSERT_NE(best, nullptr);
  EXPECT_NE(best->task_id, lucky);
  EXPECT_EQ(best->compared_at_unix_ms, stamp);
  EXPECT_DOUBLE_EQ(done->best_seconds, best->median_seconds);
  EXPECT_EQ(done->best_schedule_json, best->schedule_json);
}

// Every comparison ran at a busy moment (its leaders 3x slower than when
// the search timed them): programs it did not time now show lower medians,
// from quieter moments. The job compares the same leaders again, up to
// kMaxComparisons times, and still offers the last comparison's winner as
// its best, with that comparison's figure.
TEST_F(CoreTest, RecordsTheComparisonDidNotTimeDoNotTakeTheBest) {
  const std::string id = SubmitRetimed(16);
  ASSERT_FALSE(id.empty());
  std::map<std::string, double> first_time;
  std::string third;  // the third fastest when searched: it wins the comparison
  std::vector<MeasureTask> leased = Answer(id, [&](const MeasureTask& t) {
    if (t.retime_of.empty()) {
      if (first_time.size() == 2) third = t.task_id;
      return first_time[t.task_id] = 1e-3 * (1 + 0.01 * static_cast<double>(first_time.size()));
    }
    return first_time[t.retime_of] * (t.compared_at_unix_ms == 0 ? 1 : t.retime_of == third ? 2.5 : 3);
  });
  auto done = jobs_->Get(id);
  ASSERT_EQ(done->state, JobState::kDone);
  std::map<int64_t, std::vector<MeasureTask>> rounds = ComparisonRounds(leased);
  ASSERT_EQ(rounds.size(), static_cast<size_t>(kMaxComparisons));
  // Each comparison after a pause, twice as long as the last.
  std::vector<int64_t> stamps;
  for (const auto& [stamp, round] : rounds) stamps.push_back(stamp);
  EXPECT_GE(stamps[1] - stamps[0], absl::ToInt64Milliseconds(kCompareAgainAfterInTests));
  EXPECT_GE(stamps[2] - stamps[1], 2 * absl::ToInt64Milliseconds(kCompareAgainAfterInTests));
  std::multiset<std::string> first_leaders;
  for (const MeasureTask& t : rounds.begin()->second) first_leaders.insert(t.retime_of);
  for (const auto& [stamp, round] : rounds) {
    std::multiset<std::string> leaders;
    for (const MeasureTask& t : round) leaders.insert(t.retime_of);
    EXPECT_EQ(leaders, first_leaders) << "comparison " << stamp << " timed other leaders";
  }
  const int64_t stamp = rounds.rbegin()->first;

  std::vector<Record> records = Records(id);
  const Record* fastest_median = nullptr;
  for (const Record& r : records)
    if (!fastest_median || r.median_seconds < fastest_median->median_seconds) fastest_median = &r;
  ASSERT_NE(fastest_median, nullptr);
  EXPECT_EQ(fastest_median->compared_at_unix_ms, 0);  // an outsider's older median

  const Record best = *store_->Totals(id)->best;
  EXPECT_EQ(best.task_id, third);
  EXPECT_EQ(best.compared_at_unix_ms, stamp);
  EXPECT_DOUBLE_EQ(best.median_seconds, 2.5 * first_time[third]);  // the last comparison's alone
  EXPECT_DOUBLE_EQ(done->best_seconds, best.median_seconds);
  EXPECT_EQ(done->best_schedule_json, best.schedule_json);
  EXPECT_EQ((*store_->Best(best.workload_key, kCoreTestDevice))->task_id, best.task_id);
  EXPECT_EQ((*store_->Best(best.workload_key, ""))->task_id, best.task_id);
  EXPECT_DOUBLE_EQ(store_->Totals(id)->by_workload[best.workload_key].best_seconds, best.median_seconds);
}

// The first comparison ran at a busy moment (every leader 3x slower than
// its median before); the second at a fair one. The job offers the second
// comparison's winner with the second's figure, and compares no more.
TEST_F(CoreTest, AComparisonAtABusyMomentIsRunAgain) {
  const std::string id = SubmitRetimed(16);
  ASSERT_FALSE(id.empty());
  std::map<std::string, double> first_time;
  std::string second;  // the second fastest when searched: it wins the fair comparison
  int64_t busy_stamp = 0;
  std::vector<MeasureTask> leased = Answer(id, [&](const MeasureTask& t) {
    if (t.retime_of.empty()) {
      if (first_time.size() == 1) second = t.task_id;
      return first_time[t.task_id] = 1e-3 * (1 + 0.01 * static_cast<double>(first_time.size()));
    }
    if (t.compared_at_unix_ms == 0) return first_time[t.retime_of];
    if (busy_stamp == 0) busy_stamp = t.compared_at_unix_ms;
    if (t.compared_at_unix_ms == busy_stamp) return 3 * first_time[t.retime_of];
    return first_time[t.retime_of] * (t.retime_of == second ? 0.9 : 1.0);
  });
  auto done = jobs_->Get(id);
  ASSERT_EQ(done->state, JobState::kDone);
  std::map<int64_t, std::vector<MeasureTask>> rounds = ComparisonRounds(leased);
  ASSERT_EQ(rounds.size(), 2u);  // the busy one and the fair one
  EXPECT_EQ(rounds.begin()->first, busy_stamp);
  ASSERT_EQ(rounds.rbegin()->second.size(), 6u);  // the same three leaders, twice each
  const int64_t fair_stamp = rounds.rbegin()->first;
  // Not at once: a busy spell lasts a while.
  EXPECT_GE(fair_stamp - busy_stamp, absl::ToInt64Milliseconds(kCompareAgainAfterInTests));

  const Record best = *store_->Totals(id)->best;
  EXPECT_EQ(best.task_id, second);
  EXPECT_EQ(best.compared_at_unix_ms, fair_stamp);
  EXPECT_DOUBLE_EQ(best.median_seconds, 0.9 * first_time[second]);  // not the busy comparison's 3x
  EXPECT_DOUBLE_EQ(done->best_seconds, best.median_seconds);
  for (const Record& r : Records(id))
    if (r.compared_at_unix_ms != 0) {
      EXPECT_EQ(r.compared_at_unix_ms, fair_stamp) << r.task_id;
      EXPECT_LT(r.median_seconds, 1.25 * first_time[r.task_id]) << r.task_id << ": a busy session kept";
    }
}

// retime_top -1 turns re-timing off, and with it the comparison.
TEST_F(CoreTest, NoComparisonWithoutReTiming) {
  auto job = jobs_->Submit(Spec(16));
  ASSERT_TRUE(job.ok()) << job.status();
  std::vector<MeasureTask> leased = Answer(job->id, [](const MeasureTask&) { return 1e-3; });
  EXPECT_EQ(jobs_->Get(job->id)->state, JobState::kDone);
  EXPECT_EQ(leased.size(), 16u);
  EXPECT_TRUE(ComparisonRounds(leased).empty());
}

TEST_F(CoreTest, TasksCarryABuildDeadlineOnceTheWorkloadsCompileTimesAreKnown) {
  auto job = jobs_->Submit(Spec(kMinCompilesForDeadline + 24, 8));
  ASSERT_TRUE(job.ok()) << job.status();
  std::string worker = RegisterWorker();
  int reported = 0;
  std::vector<double> deadlines;  // each trial's, in the order leased
  for (int i = 0; i < 200 && Unfinished(jobs_->Get(job->id)->state); ++i) {
    auto lease = dispatcher_->Lease(worker, 8, 500);
    if (!lease.ok() || lease->tasks.empty()) continue;
    WorkerReport req{worker, lease->lease_id, {}};
    for (const MeasureTask& t : lease->tasks) {
      deadlines.push_back(t.build_deadline_s);
      measure::MeasureResult r = Measured(1e-3);
      r.compile_ms = 300;
      req.results.push_back({t.task_id, r});
    }
    auto accepted = dispatcher_->Report(req);
    ASSERT_TRUE(accepted.ok()) << accepted.status();
    reported += accepted->accepted;
  }
  ASSERT_EQ(reported, kMinCompilesForDeadline + 24);
  // Rounds of 8: the first ones go out before 32 compiles are known.
  EXPECT_EQ(deadlines.front(), 0);
  EXPECT_EQ(deadlines[kMinCompilesForDeadline - 1], 0);
  // Once they are: 10 x the median (0.3 s) = 3 s.
  EXPECT_DOUBLE_EQ(deadlines.back(), kBuildDeadlineFactor * 0.3);
}

TEST_F(CoreTest, RetimeTopOutOfRangeIsRefused) {
  JobSpec spec = Spec(4);
  spec.retime_top = -2;
  auto job = jobs_->Submit(spec);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("spec.retime_top must be in [-1, 64]"));
}

// A job of several workloads (a model's layers) with their weights: the
// gradient scheduler shares the rounds, and the job shows each workload's
// trials and best.
TEST_F(CoreTest, AJobOfSeveralWorkloadsTracksEachOne) {
  JobSpec spec = Spec(24, 4);
  spec.workloads.push_back(WorkloadSource::Spec("matmul:M=8,N=8,K=8"));
  spec.task_scheduler = "gradient";
  spec.weights = {4, 1};
  auto job = jobs_->Submit(spec);
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_EQ(job->tasks.size(), 2u);
  EXPECT_EQ(job->tasks[0].workload, "matmul:K=16,M=16,N=16");
  EXPECT_EQ(job->tasks[1].workload, "matmul:K=8,M=8,N=8");
  EXPECT_EQ(job->tasks[0].weight, 4);
  EXPECT_EQ(job->tasks[1].weight, 1);
  std::string worker = RegisterWorker();
  Drain(worker, job->id);
  auto done = jobs_->Get(job->id);
  ASSERT_EQ(done->state, JobState::kDone);
  std::map<std::string, int> records_of;
  for (const Record& r : Records(job->id)) ++records_of[r.workload_key];
  for (const TaskProgress& t : done->tasks) {
    EXPECT_EQ(t.trials, records_of[t.workload_key]) << t.workload;
    EXPECT_GT(t.trials, 0) << t.workload;  // the warm-up gives every workload a share
    EXPECT_DOUBLE_EQ(t.best_seconds, 1e-3) << t.workload;
  }
  EXPECT_EQ(done->tasks[0].trials + done->tasks[1].trials, 24);
}

// A later job on workloads the store has records of goes on from them (as
// TVM's task scheduler does from a log): it shows their bests before its
// first trial, never measures their programs again, and its task scheduler
// counts their trials, so the gradient scheduler spends the job on the slow
// task at once instead of warming both up again (8 + 8 of 16 trials).
TEST_F(CoreTest, ALaterJobGoesOnFromTheStoresRecords) {
  JobSpec spec = Spec(32, 8);
  spec.workloads.push_back(WorkloadSource::Spec("matmul:M=8,N=8,K=8"));
  spec.task_scheduler = "gradient";
  auto first = jobs_->Submit(spec);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string slow_key = first->tasks[1].workload_key;
  auto seconds = [&](const MeasureTask& t) { return t.workload_key == slow_key ? 0.1 : 1e-3; };
  Answer(first->id, seconds);
  ASSERT_EQ(jobs_->Get(first->id)->state, JobState::kDone);

  spec.trials = 16;
  auto later = jobs_->Submit(spec);
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_DOUBLE_EQ(later->tasks[0].best_seconds, 1e-3) << "the earlier job's best, before any trial";
  EXPECT_DOUBLE_EQ(later->tasks[1].best_seconds, 0.1);
  EXPECT_EQ(later->tasks[0].trials, 0) << "trials are the job's own";
  Answer(later->id, seconds);
  auto done = jobs_->Get(later->id);
  ASSERT_EQ(done->state, JobState::kDone);
  EXPECT_EQ(done->tasks[0].trials + done->tasks[1].trials, 16);
  EXPECT_GE(done->tasks[1].trials, 12) << "no second warm-up: the slow task takes the job";
  EXPECT_DOUBLE_EQ(done->tasks[0].best_seconds, 1e-3);

  std::set<std::string> earlier_programs;
  for (const Record& r : Records(first->id)) earlier_programs.insert(r.schedule_json);
  for (const Record& r : Records(later->id))
    EXPECT_FALSE(earlier_programs.contains(r.schedule_json)) << "measured again: " << r.schedule_json;
}

}  // namespace
}  // namespace tuneforge::server
