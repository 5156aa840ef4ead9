// A real server on 127.0.0.1 restarted on the same database while a worker
// holds a lease: the pending tasks are not leased to anyone else before the
// old worker could report them, its late report is kept, and no candidate
// is measured twice. Lost workers leave the worker list after a while. A
// re-timing is counted as an update in the report's answer, not a new record.
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "tests/server/service/test_server.h"

namespace tuneforge::server::testing {
namespace {

// A server on a database that outlives it (the restart case).
struct LiveServer {
  std::unique_ptr<Server> server;
  std::unique_ptr<Stubs> stubs;
};

absl::StatusOr<LiveServer> StartOn(const std::string& db_path, ServerOptions options = {}) {
  options.listen = "127.0.0.1:0";
  options.db_path = db_path;
  options.token = kToken;
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options);
  if (!server.ok()) return server.status();
  LiveServer live;
  live.server = *std::move(server);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      rpc::MakeChannel({absl::StrCat("127.0.0.1:", live.server->port()), kToken, ""});
  if (!channel.ok()) return channel.status();
  live.stubs = std::make_unique<Stubs>(*channel);
  return live;
}

absl::StatusOr<v1::LeaseResponse> Lease(Stubs& stubs, const std::string& worker_id, int max_tasks, int wait_ms) {
  v1::LeaseRequest request;
  request.set_worker_id(worker_id);
  request.set_max_tasks(max_tasks);
  request.set_wait_ms(wait_ms);
  v1::LeaseResponse lease;
  grpc::Status status = stubs.workers->Lease(Authed().get(), request, &lease);
  if (!status.ok()) return rpc::FromGrpc(status);
  return lease;
}

absl::StatusOr<v1::ReportResponse> ReportAll(Stubs& stubs, const std::string& worker_id,
                                             const v1::LeaseResponse& lease, double seconds = 1e-5) {
  v1::ReportRequest report;
  report.set_worker_id(worker_id);
  report.set_lease_id(lease.lease_id());
  for (int i = 0; i < lease.tasks_size(); ++i)
    *report.add_results() = GoodResult(lease.tasks(i).task_id(), seconds * (1 + i));
  v1::ReportResponse response;
  grpc::Status status = stubs.workers->Report(Authed().get(), report, &response);
  if (!status.ok()) return rpc::FromGrpc(status);
  return response;
}

absl::StatusOr<v1::Job> Submit(Stubs& stubs, const v1::JobSpec& spec) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  v1::SubmitJobResponse response;
  grpc::Status status = stubs.jobs->Submit(Authed().get(), request, &response);
  if (!status.ok()) return rpc::FromGrpc(status);
  return response.job();
}

absl::StatusOr<v1::Job> GetJob(Stubs& stubs, const std::string& id) {
  v1::GetJobRequest request;
  request.set_id(id);
  v1::GetJobResponse response;
  grpc::Status status = stubs.jobs->Get(Authed().get(), request, &response);
  if (!status.ok()) return rpc::FromGrpc(status);
  return response.job();
}

std::vector<v1::WorkerStatus> ListWorkers(Stubs& stubs) {
  v1::ListWorkersResponse response;
  grpc::Status status = stubs.workers->List(Authed().get(), v1::ListWorkersRequest{}, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return {response.workers().begin(), response.workers().end()};
}

v1::JobSpec EightTrialsInOneRound() {
  v1::JobSpec spec = SmallJobSpec(8);
  spec.set_batch_size(8);
  spec.set_policy("random");
  return spec;
}

// A server on `db` with a job of one round, the whole round (8 tasks) leased
// to a worker "A", stopped while A still measures it.
struct HeldRound {
  std::string job_id;
  std::string worker_id;
  v1::LeaseResponse lease;
};

absl::StatusOr<HeldRound> LeaseTheRoundThenStop(const std::string& db) {
  absl::StatusOr<LiveServer> first = StartOn(db);
  if (!first.ok()) return first.status();
  absl::StatusOr<v1::Job> job = Submit(*first->stubs, EightTrialsInOneRound());
  if (!job.ok()) return job.status();
  absl::StatusOr<std::string> worker = RegisterWorker(*first->stubs);
  if (!worker.ok()) return worker.status();
  absl::StatusOr<v1::LeaseResponse> lease = Lease(*first->stubs, *worker, 8, 10000);
  if (!lease.ok()) return lease.status();
  if (lease->tasks_size() != 8)
    return absl::InternalError(absl::StrCat("A leased ", lease->tasks_size(), " tasks, not the round's 8"));
  first->server->Shutdown();
  return HeldRound{job->id(), *worker, *std::move(lease)};
}

// Worker A holds the whole round when the server stops; after the restart
// worker B asks for work at once and gets none of A's tasks; A's late
// report lands and counts; the job ends with each task measured once.
TEST(RestartGraceTest, PendingTasksWaitForTheLateReportOfTheirOldLease) {
  TempDir dir;
  const std::string db = dir.File("records.db");
  absl::StatusOr<HeldRound> round = LeaseTheRoundThenStop(db);
  ASSERT_TRUE(round.ok()) << round.status();
  const std::string job_id = round->job_id, worker_a = round->worker_id;
  const v1::LeaseResponse held = round->lease;
  absl::StatusOr<LiveServer> second = StartOn(db);
  ASSERT_TRUE(second.ok()) << second.status();
  absl::StatusOr<std::string> b = RegisterWorker(*second->stubs);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<v1::LeaseResponse> early = Lease(*second->stubs, *b, 8, 1500);
  ASSERT_TRUE(early.ok()) << early.status();
  EXPECT_EQ(early->tasks_size(), 0) << "a task of the old lease was handed out again before it could report";

  // A reports to the new server under its old worker id and lease.
  absl::StatusOr<v1::ReportResponse> late = ReportAll(*second->stubs, worker_a, held);
  ASSERT_TRUE(late.ok()) << late.status();
  EXPECT_EQ(late->accepted(), 8);
  EXPECT_EQ(late->rejected(), 0);

  absl::StatusOr<v1::Job> done = GetJob(*second->stubs, job_id);
  for (int i = 0; i < 100 && done.ok() && done->state() != v1::JOB_STATE_DONE; ++i) {
    absl::SleepFor(absl::Milliseconds(50));
    done = GetJob(*second->stubs, job_id);
  }
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::JOB_STATE_DONE);
  EXPECT_EQ(done->trials_done(), 8);
  absl::StatusOr<v1::LeaseResponse> after = Lease(*second->stubs, *b, 8, 300);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->tasks_size(), 0) << "a measured task was handed out again";
}

// With the grace over and the old worker still silent, the tasks go to the
// new worker; a late report that still lands first is kept, and the copy
// measured by the new worker is then refused instead of stored twice.
TEST(RestartGraceTest, AfterTheGraceTheTasksGoOutAndALateReportStillCounts) {
  TempDir dir;
  const std::string db = dir.File("records.db");
  absl::StatusOr<HeldRound> round = LeaseTheRoundThenStop(db);
  ASSERT_TRUE(round.ok()) << round.status();
  const std::string job_id = round->job_id, worker_a = round->worker_id;
  const v1::LeaseResponse held = round->lease;
  ServerOptions options;
  options.dispatcher.restart_grace_ms = 300;
  absl::StatusOr<LiveServer> second = StartOn(db, options);
  ASSERT_TRUE(second.ok()) << second.status();
  absl::StatusOr<std::string> b = RegisterWorker(*second->stubs);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<v1::LeaseResponse> released = Lease(*second->stubs, *b, 8, 5000);
  ASSERT_TRUE(released.ok()) << released.status();
  ASSERT_EQ(released->tasks_size(), 8) << "the held tasks were not released after the grace";

  absl::StatusOr<v1::ReportResponse> late = ReportAll(*second->stubs, worker_a, held);
  ASSERT_TRUE(late.ok()) << late.status();
  EXPECT_EQ(late->accepted(), 8);
  absl::StatusOr<v1::ReportResponse> again = ReportAll(*second->stubs, *b, *released);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->accepted(), 0);
  EXPECT_EQ(again->rejected(), 8);
  absl::StatusOr<v1::Job> job = GetJob(*second->stubs, job_id);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->trials_done(), 8);
}

TEST(WorkerListTest, LostWorkersLeaveTheListAfterTheirTime) {
  ServerOptions options;
  options.dispatcher.heartbeat_interval_ms = 100;
  options.dispatcher.missed_heartbeats_before_lost = 2;
  options.dispatcher.lost_worker_listed_ms = 800;
  absl::StatusOr<std::unique_ptr<TestServer>> server = TestServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  Stubs& stubs = (*server)->stubs();
  absl::StatusOr<std::string> silent = RegisterWorker(stubs);
  ASSERT_TRUE(silent.ok()) << silent.status();

  auto state_of = [&](const std::string& id) -> std::string {
    for (const v1::WorkerStatus& w : ListWorkers(stubs))
      if (w.id() == id) return w.state();
    return "";
  };
  // Silent for two intervals: listed as lost.
  std::string state = state_of(*silent);
  for (int i = 0; i < 50 && state != "lost"; ++i) {
    absl::SleepFor(absl::Milliseconds(20));
    state = state_of(*silent);
  }
  EXPECT_EQ(state, "lost");
  // Then gone from the list, while a worker that heartbeats stays.
  absl::StatusOr<std::string> alive = RegisterWorker(stubs);
  ASSERT_TRUE(alive.ok()) << alive.status();
  absl::Time end = absl::Now() + absl::Seconds(5);
  while (absl::Now() < end && !state_of(*silent).empty()) {
    v1::HeartbeatRequest beat;
    beat.set_worker_id(*alive);
    v1::HeartbeatResponse ack;
    ASSERT_TRUE(stubs.workers->Heartbeat(Authed().get(), beat, &ack).ok());
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(state_of(*silent), "") << "a lost worker is still listed after lost_worker_listed_ms";
  EXPECT_EQ(state_of(*alive), "alive");
}

// Re-timings update a stored record: the report counts them apart from new
// records, so "accepted" equals the records the job has.
TEST(ReportCountsTest, ReTimingsAreUpdatesNotNewRecords) {
  absl::StatusOr<std::unique_ptr<TestServer>> server = TestServer::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  Stubs& stubs = (*server)->stubs();
  v1::JobSpec spec = SmallJobSpec(8);
  spec.set_batch_size(4);
  spec.set_policy("random");
  spec.set_retime_top(2);
  absl::StatusOr<v1::Job> job = Submit(stubs, spec);
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<std::string> worker = RegisterWorker(stubs);
  ASSERT_TRUE(worker.ok()) << worker.status();
  int accepted = 0, updated = 0, retime_tasks = 0;
  absl::Time end = absl::Now() + absl::Seconds(60);
  absl::StatusOr<v1::Job> now = job;
  while (absl::Now() < end && now.ok() && now->state() != v1::JOB_STATE_DONE) {
    absl::StatusOr<v1::LeaseResponse> lease = Lease(stubs, *worker, 16, 200);
    ASSERT_TRUE(lease.ok()) << lease.status();
    for (const v1::MeasureTask& t : lease->tasks()) retime_tasks += t.retime_of().empty() ? 0 : 1;
    if (lease->tasks_size() > 0) {
      absl::StatusOr<v1::ReportResponse> r = ReportAll(stubs, *worker, *lease);
      ASSERT_TRUE(r.ok()) << r.status();
      accepted += r->accepted();
      updated += r->updated();
    }
    now = GetJob(stubs, job->id());
  }
  ASSERT_TRUE(now.ok()) << now.status();
  ASSERT_EQ(now->state(), v1::JOB_STATE_DONE);
  EXPECT_GT(retime_tasks, 0);
  EXPECT_EQ(accepted, 8);  // the job's records
  EXPECT_EQ(updated, retime_tasks);
  EXPECT_EQ(now->retimed(), retime_tasks);
}

}  // namespace
}  // namespace tuneforge::server::testing
