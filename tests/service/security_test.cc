// Calls the server must refuse, each with a clear error: no token, a wrong
// token, malformed requests, unknown ids, bytes that are not a message.
// After all of them the server still runs a normal job.
#include <future>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/rpc/auth.h"
#include "common/rpc/channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "tests/service/harness.h"

namespace tuneforge::service_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class SecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster);
  }

  // A context with `token` ("" : no authorization metadata at all).
  std::unique_ptr<grpc::ClientContext> ContextWithToken(const std::string& token) {
    if (!token.empty()) return rpc::MakeContext(token, absl::Seconds(10));
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return ctx;
  }

  // The server is still healthy: a normal job completes.
  void ExpectServerStillServes() {
    Cluster& c = *cluster_;
    if (c.num_workers() == 0) {
      ASSERT_TRUE(c.StartWorker().ok());
    }
    absl::StatusOr<v1::Job> job = c.Submit(SmallJob("matmul:M=32,N=32,K=32", 3));
    ASSERT_TRUE(job.ok()) << job.status();
    absl::StatusOr<v1::Job> done = c.WaitForJobEnd(job->id(), absl::Seconds(60));
    ASSERT_TRUE(done.ok()) << done.status();
    EXPECT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
    EXPECT_TRUE(c.server().Running());
  }

  std::unique_ptr<Cluster> cluster_;
};

void ExpectUnauthenticated(const grpc::Status& status) {
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("token"));
}

TEST_F(SecurityTest, EveryServiceRefusesCallsWithoutTheToken) {
  Cluster& c = *cluster_;
  for (const std::string& token : {std::string(), std::string("not-the-token"), c.token() + "x"}) {
    SCOPED_TRACE(token.empty() ? "no token" : "token '" + token + "'");
    v1::ListJobsResponse jobs;
    ExpectUnauthenticated(c.jobs().List(ContextWithToken(token).get(), v1::ListJobsRequest(), &jobs));
    v1::SubmitJobRequest submit;
    *submit.mutable_spec() = SmallJob("matmul:M=32,N=32,K=32", 1);
    v1::SubmitJobResponse submitted;
    ExpectUnauthenticated(c.jobs().Submit(ContextWithToken(token).get(), submit, &submitted));
    v1::RegisterWorkerRequest reg;
    reg.mutable_device()->set_device_key("intruder");
    v1::RegisterWorkerResponse registered;
    ExpectUnauthenticated(c.workers_rpc().Register(ContextWithToken(token).get(), reg, &registered));
    v1::BestRequest best;
    best.set_workload_key("0123456789abcdef");
    v1::BestResponse found;
    ExpectUnauthenticated(c.records().Best(ContextWithToken(token).get(), best, &found));
  }
  // Nothing got in: no job, no worker.
  absl::StatusOr<std::vector<v1::WorkerStatus>> workers = c.ListWorkers();
  ASSERT_TRUE(workers.ok()) << workers.status();
  EXPECT_TRUE(workers->empty());
  v1::ListJobsResponse jobs;
  ASSERT_TRUE(c.jobs().List(c.Context().get(), v1::ListJobsRequest(), &jobs).ok());
  EXPECT_EQ(jobs.jobs_size(), 0);
  ExpectServerStillServes();
}

TEST_F(SecurityTest, CliWithoutOrWithAWrongTokenFailsWithOneLine) {
  Cluster& c = *cluster_;
  std::string wrong_file = c.dir() + "/wrong-token";
  ASSERT_TRUE(rpc::WriteTokenFile(wrong_file, "wrong").ok());
  CliResult wrong = c.RunCli({"workers", "--server", c.address(), "--token-file", wrong_file});
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_THAT(wrong.err, HasSubstr("token"));
  EXPECT_EQ(wrong.err.find('\n'), wrong.err.size() - 1) << "not one line: " << wrong.err;

  CliResult none = c.RunCli({"workers", "--server", c.address()});
  EXPECT_NE(none.exit_code, 0);
  EXPECT_THAT(none.err, AllOf(HasSubstr("token"), HasSubstr("--token-file")));

  CliResult missing = c.RunCli({"workers", "--server", c.address(), "--token-file", c.dir() + "/nope"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.err, HasSubstr("nope"));
}

// Submits `spec` and expects INVALID_ARGUMENT naming `field`.
void ExpectSubmitRefused(Cluster& c, const v1::JobSpec& spec, const std::string& field) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  v1::SubmitJobResponse response;
  grpc::Status status = c.jobs().Submit(c.Context().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << field << ": " << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr(field));
}

TEST_F(SecurityTest, MalformedJobsAreRefusedNamingTheField) {
  Cluster& c = *cluster_;
  const std::string ok_workload = "matmul:M=32,N=32,K=32";
  v1::JobSpec zero_trials = SmallJob(ok_workload, 0);
  ExpectSubmitRefused(c, zero_trials, "trials");
  v1::JobSpec negative_trials = SmallJob(ok_workload, -5);
  ExpectSubmitRefused(c, negative_trials, "trials");
  v1::JobSpec no_workloads = SmallJob(ok_workload, 4);
  no_workloads.clear_workloads();
  ExpectSubmitRefused(c, no_workloads, "workloads");
  v1::JobSpec bad_op = SmallJob("matmull:M=32,N=32,K=32", 4);
  ExpectSubmitRefused(c, bad_op, "workloads[0]");
  v1::JobSpec bad_shape = SmallJob("matmul:M=-3,N=32,K=32", 4);
  ExpectSubmitRefused(c, bad_shape, "workloads[0]");
  v1::JobSpec second_bad = SmallJob(ok_workload, 4);
  second_bad.add_workloads()->set_spec("conv2d:N=1");
  ExpectSubmitRefused(c, second_bad, "workloads[1]");
  v1::JobSpec empty_workload = SmallJob(ok_workload, 4);
  empty_workload.mutable_workloads(0)->clear_source();
  ExpectSubmitRefused(c, empty_workload, "workloads[0]");
  v1::JobSpec bad_definition = SmallJob(ok_workload, 4);
  bad_definition.mutable_workloads(0)->set_definition("input X: float32[4\n");
  ExpectSubmitRefused(c, bad_definition, "workloads[0]");
  v1::JobSpec no_device = SmallJob(ok_workload, 4);
  no_device.clear_device_key();
  ExpectSubmitRefused(c, no_device, "device_key");
  v1::JobSpec bad_policy = SmallJob(ok_workload, 4);
  bad_policy.set_policy("genetic-magic");
  ExpectSubmitRefused(c, bad_policy, "policy");
  v1::JobSpec negative_timeout = SmallJob(ok_workload, 4);
  negative_timeout.mutable_measure()->set_timeout_s(-1);
  ExpectSubmitRefused(c, negative_timeout, "timeout_s");
  v1::JobSpec negative_repeat = SmallJob(ok_workload, 4);
  negative_repeat.mutable_measure()->set_repeat(-2);
  ExpectSubmitRefused(c, negative_repeat, "repeat");

  v1::ListJobsResponse jobs;
  ASSERT_TRUE(c.jobs().List(c.Context().get(), v1::ListJobsRequest(), &jobs).ok());
  EXPECT_EQ(jobs.jobs_size(), 0) << "a refused job was stored";
  ExpectServerStillServes();
}

TEST_F(SecurityTest, UnknownIdsAreNotFound) {
  Cluster& c = *cluster_;
  const std::string unknown = "job-does-not-exist";
  v1::GetJobRequest get;
  get.set_id(unknown);
  v1::GetJobResponse got;
  grpc::Status status = c.jobs().Get(c.Context().get(), get, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr(unknown));

  v1::CancelJobRequest cancel;
  cancel.set_id(unknown);
  v1::CancelJobResponse cancelled;
  status = c.jobs().Cancel(c.Context().get(), cancel, &cancelled);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();

  v1::WatchJobRequest watch;
  watch.set_id(unknown);
  auto ctx = c.Context();
  auto stream = c.jobs().Watch(ctx.get(), watch);
  v1::JobProgress progress;
  EXPECT_FALSE(stream->Read(&progress));
  status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();

  v1::GetJobRequest empty;
  status = c.jobs().Get(c.Context().get(), empty, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("id"));

  // The CLI says the same in one line.
  CliResult cli = c.RunCliOnServer({"status", unknown});
  EXPECT_NE(cli.exit_code, 0);
  EXPECT_THAT(cli.err, HasSubstr(unknown));

  // A worker id the server never gave out.
  v1::LeaseRequest lease;
  lease.set_worker_id("worker-never-registered");
  lease.set_max_tasks(1);
  v1::LeaseResponse leased;
  status = c.workers_rpc().Lease(c.Context().get(), lease, &leased);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
  v1::HeartbeatRequest beat;
  beat.set_worker_id("worker-never-registered");
  v1::HeartbeatResponse known;
  ASSERT_TRUE(c.workers_rpc().Heartbeat(c.Context().get(), beat, &known).ok());
  EXPECT_FALSE(known.known());
  ExpectServerStillServes();
}

TEST_F(SecurityTest, MalformedWorkerAndRecordRequestsAreRefused) {
  Cluster& c = *cluster_;
  v1::RegisterWorkerRequest reg;
  reg.mutable_device()->set_device_key("probe-only");
  reg.mutable_device()->set_triple("x86_64-pc-linux-gnu");
  reg.mutable_device()->set_cores(1);
  reg.mutable_device()->set_can_build(true);
  v1::RegisterWorkerResponse registered;
  grpc::Status status = c.workers_rpc().Register(c.Context().get(), reg, &registered);
  ASSERT_TRUE(status.ok()) << status.error_message();

  for (int max_tasks : {0, -1, 100000}) {
    v1::LeaseRequest lease;
    lease.set_worker_id(registered.worker_id());
    lease.set_max_tasks(max_tasks);
    v1::LeaseResponse leased;
    status = c.workers_rpc().Lease(c.Context().get(), lease, &leased);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << max_tasks;
    EXPECT_THAT(status.error_message(), HasSubstr("max_tasks"));
  }
  v1::RegisterWorkerRequest no_key;
  status = c.workers_rpc().Register(c.Context().get(), no_key, &registered);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("device is required"));

  v1::BestRequest best;  // neither a workload nor a key
  v1::BestResponse found;
  status = c.records().Best(c.Context().get(), best, &found);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  v1::QueryRecordsRequest query;
  query.set_limit(-1);
  v1::QueryRecordsResponse queried;
  status = c.records().Query(c.Context().get(), query, &queried);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("limit"));

  // An import line that is not a record: refused naming the line, nothing stored.
  auto ctx = c.Context();
  v1::ImportRecordsResponse imported;
  auto writer = c.records().Import(ctx.get(), &imported);
  v1::RecordLines lines;
  lines.add_lines("{\"this is\": \"not a record\"}");
  writer->Write(lines);
  writer->WritesDone();
  status = writer->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("line 1"));
  ExpectServerStillServes();
}

TEST_F(SecurityTest, BytesThatAreNotAMessageDoNotHurtTheServer) {
  Cluster& c = *cluster_;
  grpc::GenericStub generic(c.NewChannel());
  const std::string garbage = "\xff\xff\xff\xff\x0f garbage that is not a protobuf";
  for (const char* method : {"/tuneforge.v1.Jobs/Submit", "/tuneforge.v1.Workers/Report",
                             "/tuneforge.v1.Records/Query"}) {
    grpc::Slice slice(garbage);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    auto ctx = c.Context(absl::Seconds(10));
    std::promise<grpc::Status> done;
    generic.UnaryCall(ctx.get(), method, grpc::StubOptions(), &request, &response,
                      [&done](grpc::Status s) { done.set_value(s); });
    grpc::Status status = done.get_future().get();
    EXPECT_FALSE(status.ok()) << method;
  }
  ExpectServerStillServes();
}

}  // namespace
}  // namespace tuneforge::service_test
