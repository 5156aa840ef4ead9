// WorkerAgent and the tuneforge-worker binary against the real server
// (server::Server on 127.0.0.1 with a temporary SQLite database): jobs
// submitted through the Jobs API complete with the worker's records.
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <set>

#include "common/rpc/channel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/tuneforge.grpc.pb.h"
#include "server/marshal/to_proto.h"
#include "server/server.h"
#include "tests/worker_agent/test_tasks.h"
#include "tests/worker_agent/worker_process.h"

namespace tuneforge::worker::testing {
namespace {

constexpr char kToken[] = "real-server-test-token";
constexpr char kDeviceKey[] = "agent-test-cpu";

// A real server on a fixed database, restartable on the same port.
class RealServer {
 public:
  RealServer() {
    char templ[] = "/tmp/tf_agent_real_XXXXXX";
    dir_ = mkdtemp(templ) ? templ : "/tmp";
    db_ = dir_ + "/tuneforge.db";
  }
  ~RealServer() {
    server_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Port 0 the first time (a free one), then the same port again.
  absl::Status Start() {
    server::ServerOptions options;
    options.listen = "127.0.0.1:" + std::to_string(port_);
    options.db_path = db_;
    options.token = kToken;
    options.dispatcher.heartbeat_interval_ms = 200;
    options.dispatcher.missed_heartbeats_before_lost = 10;
    absl::Status last;
    // A port just released can take a moment to bind again.
    for (int attempt = 0; attempt < 50; ++attempt) {
      absl::StatusOr<std::unique_ptr<server::Server>> s = server::Server::Start(options);
      if (s.ok()) {
        server_ = *std::move(s);
        port_ = server_->port();
        return absl::OkStatus();
      }
      last = s.status();
      absl::SleepFor(absl::Milliseconds(100));
    }
    return last;
  }
  void Stop() { server_.reset(); }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  server::Server& server() { return *server_; }

  absl::StatusOr<v1::Job> Submit(const v1::JobSpec& spec) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = spec;
    v1::SubmitJobResponse response;
    auto context = rpc::MakeContext(kToken);
    absl::Status s = rpc::FromGrpc(Jobs().Submit(context.get(), request, &response));
    if (!s.ok()) return s;
    return response.job();
  }

  // Polls until the job is done, failed or cancelled.
  absl::StatusOr<v1::Job> WaitForEnd(const std::string& id, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      v1::GetJobRequest request;
      request.set_id(id);
      v1::GetJobResponse response;
      auto context = rpc::MakeContext(kToken);
      absl::Status s = rpc::FromGrpc(Jobs().Get(context.get(), request, &response));
      if (s.ok() && response.job().state() >= v1::JOB_STATE_DONE) return response.job();
      absl::SleepFor(absl::Milliseconds(100));
    }
    return absl::DeadlineExceededError("the job did not end in time");
  }

  std::vector<v1::Record> Records(const std::string& job_id) {
    server::RecordFilter filter;
    filter.job_id = job_id;
    filter.limit = 0;
    absl::StatusOr<std::vector<server::Record>> stored = server_->store().Query(filter);
    EXPECT_TRUE(stored.ok()) << stored.status();
    std::vector<v1::Record> records;  // as a client sees them
    if (stored.ok())
      for (const server::Record& r : *stored) records.push_back(server::ToProto(r));
    return records;
  }

  std::vector<v1::WorkerStatus> Workers() {
    v1::ListWorkersResponse response;
    auto context = rpc::MakeContext(kToken);
    auto stub = v1::Workers::NewStub(Channel());
    EXPECT_TRUE(stub->List(context.get(), v1::ListWorkersRequest(), &response).ok());
    return {response.workers().begin(), response.workers().end()};
  }

 private:
  std::shared_ptr<grpc::Channel> Channel() {
    return grpc::CreateChannel(address(), grpc::InsecureChannelCredentials());
  }
  v1::Jobs::Stub& Jobs() {
    jobs_ = v1::Jobs::NewStub(Channel());
    return *jobs_;
  }

  std::string dir_, db_;
  int port_ = 0;
  std::unique_ptr<server::Server> server_;
  std::unique_ptr<v1::Jobs::Stub> jobs_;
};

v1::JobSpec MatmulJob(int trials, int batch_size, const v1::MeasureOptions& measure) {
  v1::JobSpec spec;
  spec.add_workloads()->set_spec("matmul:M=64,N=64,K=64");
  spec.set_device_key(kDeviceKey);
  spec.set_trials(trials);
  spec.set_batch_size(batch_size);
  spec.set_seed(11);
  spec.set_retime_top(-1);  // tests count the agent's tasks as trials; re-timing is tested in tests/server/core
  *spec.mutable_measure() = measure;
  return spec;
}

WorkerOptions RealAgentOptions(const std::string& address) {
  WorkerOptions o = AgentOptions(address, kToken);
  o.device_key = kDeviceKey;
  return o;
}

std::set<std::string> TaskIds(const std::vector<v1::Record>& records) {
  std::set<std::string> ids;
  for (const v1::Record& r : records) ids.insert(r.task_id());
  return ids;
}

int CountOk(const std::vector<v1::Record>& records) {
  int ok = 0;
  for (const v1::Record& r : records) ok += r.error_kind() == "none";
  return ok;
}

TEST(RealServerTest, AJobCompletesWithTheAgentsRecords) {
  RealServer server;
  ASSERT_TRUE(server.Start().ok());
  absl::StatusOr<v1::Job> job = server.Submit(MatmulJob(8, 4, QuickOptions()));
  ASSERT_TRUE(job.ok()) << job.status();
  RunningAgent run(RealAgentOptions(server.address()));
  absl::StatusOr<v1::Job> done = server.WaitForEnd(job->id(), absl::Seconds(120));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  std::vector<v1::Record> records = server.Records(job->id());
  EXPECT_EQ(records.size(), 8u);
  EXPECT_EQ(TaskIds(records).size(), 8u);
  EXPECT_GE(CountOk(records), 1);
  for (const v1::Record& r : records) {
    EXPECT_EQ(r.worker_id(), run.agent().worker_id());
    EXPECT_EQ(r.device_key(), kDeviceKey);
  }
  EXPECT_GT(done->best_gflops(), 0);
  EXPECT_TRUE(run.StopAndJoin().ok());
  EXPECT_EQ(run.agent().counters().tasks_measured, 8);
}

TEST(RealServerTest, RunnerOnlyWorkerMeasuresObjectsTheServerBuilt) {
  RealServer server;
  ASSERT_TRUE(server.Start().ok());
  absl::StatusOr<v1::Job> job = server.Submit(MatmulJob(6, 3, QuickOptions()));
  ASSERT_TRUE(job.ok()) << job.status();
  WorkerOptions options = RealAgentOptions(server.address());
  options.runner_only = true;
  RunningAgent run(options);
  absl::StatusOr<v1::Job> done = server.WaitForEnd(job->id(), absl::Seconds(120));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  std::vector<v1::Record> records = server.Records(job->id());
  EXPECT_EQ(records.size(), 6u);
  EXPECT_GE(CountOk(records), 1);
  for (const v1::Record& r : records) {
    if (r.error_kind() == "none") {
      EXPECT_EQ(r.compile_ms(), 0) << "a runner-only worker compiles nothing";
    }
  }
  bool listed = false;
  for (const v1::WorkerStatus& w : server.Workers())
    if (w.id() == run.agent().worker_id()) listed = !w.device().can_build();
  EXPECT_TRUE(listed);
}

TEST(RealServerTest, ServerRestartMidJobLosesAndDuplicatesNothing) {
  RealServer server;
  ASSERT_TRUE(server.Start().ok());
  v1::MeasureOptions measure = QuickOptions();
  measure.set_min_repeat_ms(150);  // about 0.3 s per candidate
  absl::StatusOr<v1::Job> job = server.Submit(MatmulJob(12, 4, measure));
  ASSERT_TRUE(job.ok()) << job.status();
  RunningAgent run(RealAgentOptions(server.address()));
  // Stop the server while the worker holds a lease.
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (run.agent().counters().leases == 0 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(20));
  ASSERT_GE(run.agent().counters().leases, 1);
  server.Stop();
  absl::SleepFor(absl::Seconds(1));
  ASSERT_TRUE(server.Start().ok());
  absl::StatusOr<v1::Job> done = server.WaitForEnd(job->id(), absl::Seconds(180));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  std::vector<v1::Record> records = server.Records(job->id());
  EXPECT_EQ(records.size(), 12u);
  EXPECT_EQ(TaskIds(records).size(), records.size()) << "a task was recorded twice";
  // The restarted server no longer knew the worker: it registered again.
  // (Whether one of its calls also found the server down depends on timing.)
  WorkerCounters c = run.agent().counters();
  EXPECT_GE(c.registrations, 2);
}

TEST(RealServerTest, SigtermedWorkerReturnsItsTasksAndAnotherFinishesTheJob) {
  RealServer server;
  ASSERT_TRUE(server.Start().ok());
  absl::StatusOr<v1::Job> job = server.Submit(MatmulJob(6, 6, SlowOptions()));
  ASSERT_TRUE(job.ok()) << job.status();
  std::string token_file = WriteTempFile("token", kToken);
  WorkerProcess worker({"--server", server.address(), "--token-file", token_file, "--device-key",
                        kDeviceKey, "--max-tasks", "6"});
  ASSERT_TRUE(worker.started());
  // Wait until the worker holds the whole batch.
  bool holding = false;
  for (absl::Time deadline = absl::Now() + absl::Seconds(60); !holding && absl::Now() < deadline;) {
    for (const v1::WorkerStatus& w : server.Workers()) holding |= w.leases() == 6;
    absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_TRUE(holding) << worker.Stdout() << worker.Stderr();
  absl::SleepFor(absl::Milliseconds(300));
  worker.Signal(SIGTERM);
  std::optional<int> code = worker.Wait(absl::Seconds(30));
  ASSERT_TRUE(code.has_value()) << "the worker did not exit after SIGTERM";
  EXPECT_EQ(*code, 0) << worker.Stderr();
  EXPECT_THAT(worker.Stdout(), ::testing::HasSubstr("unstarted tasks to the server"));
  for (const v1::WorkerStatus& w : server.Workers()) EXPECT_EQ(w.leases(), 0) << w.id();
  // The returned tasks go to the next worker at once (not after a lease
  // deadline): the job completes with every trial recorded once.
  RunningAgent run(RealAgentOptions(server.address()));
  absl::StatusOr<v1::Job> done = server.WaitForEnd(job->id(), absl::Seconds(120));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  std::vector<v1::Record> records = server.Records(job->id());
  EXPECT_EQ(records.size(), 6u);
  EXPECT_EQ(TaskIds(records).size(), 6u);
  EXPECT_GE(run.agent().counters().tasks_measured, 1);
}

}  // namespace
}  // namespace tuneforge::worker::testing
