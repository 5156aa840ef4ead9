#include "tests/server/service/test_server.h"

#include <stdlib.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth.h"
#include "common/rpc/channel.h"

namespace tuneforge::server::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat(base && *base ? base : "/tmp", "/tf-service-test-XXXXXX");
  path_ = mkdtemp(pattern.data()) ? pattern : "";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

Stubs::Stubs(const std::shared_ptr<grpc::Channel>& channel)
    : jobs(v1::Jobs::NewStub(channel)),
      workers(v1::Workers::NewStub(channel)),
      records(v1::Records::NewStub(channel)) {}

absl::StatusOr<std::unique_ptr<TestServer>> TestServer::Start(ServerOptions options) {
  std::unique_ptr<TestServer> t(new TestServer());
  if (t->dir_.path().empty()) return absl::InternalError("cannot make a temporary folder");
  options.listen = "127.0.0.1:0";
  options.db_path = t->dir_.File("records.db");
  options.token = kToken;
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options);
  if (!server.ok()) return server.status();
  t->server_ = *std::move(server);
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = rpc::MakeChannel({t->address(), kToken, ""});
  if (!channel.ok()) return channel.status();
  t->channel_ = *channel;
  t->stubs_ = std::make_unique<Stubs>(t->channel_);
  return t;
}

TestServer::~TestServer() {
  stubs_.reset();
  if (server_) server_->Shutdown();
}

std::string TestServer::address() const { return absl::StrCat("127.0.0.1:", server_->port()); }

std::unique_ptr<grpc::ClientContext> Authed(absl::Duration deadline) { return rpc::MakeContext(kToken, deadline); }

std::unique_ptr<grpc::ClientContext> NoToken() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return context;
}

std::unique_ptr<grpc::ClientContext> WithAuthorization(const std::string& value) {
  std::unique_ptr<grpc::ClientContext> context = NoToken();
  context->AddMetadata(rpc::kAuthMetadataKey, value);
  return context;
}

v1::JobSpec SmallJobSpec(int trials) {
  v1::JobSpec spec;
  spec.add_workloads()->set_spec("matmul:M=16,N=16,K=16");
  spec.set_device_key(kDeviceKey);
  spec.set_trials(trials);
  spec.set_batch_size(4);
  spec.set_name("service test");
  spec.set_retime_top(-1);  // the test workers count tasks as trials; re-timing is tested in tests/server/core
  return spec;
}

v1::DeviceInfo TestDevice() {
  v1::DeviceInfo device;
  device.set_device_key(kDeviceKey);
  device.set_triple("x86_64-unknown-linux-gnu");
  device.set_cpu("generic");
  device.set_cores(1);
  device.set_hostname("service-test");
  device.set_can_build(true);
  return device;
}

v1::MeasureResult GoodResult(const std::string& task_id, double seconds) {
  v1::MeasureResult result;
  result.set_task_id(task_id);
  result.set_error_kind(v1::MEASURE_ERROR_KIND_NONE);
  result.set_median_seconds(seconds);
  result.add_repeat_seconds(seconds);
  result.set_compile_ms(1.5);
  return result;
}

absl::StatusOr<std::string> RegisterWorker(Stubs& stubs) {
  v1::RegisterWorkerRequest request;
  *request.mutable_device() = TestDevice();
  v1::RegisterWorkerResponse response;
  grpc::Status status = stubs.workers->Register(Authed().get(), request, &response);
  if (!status.ok()) return rpc::FromGrpc(status);
  return response.worker_id();
}

absl::StatusOr<int> LeaseAndReport(Stubs& stubs, const std::string& worker_id, int max_tasks, int wait_ms) {
  v1::LeaseRequest lease_request;
  lease_request.set_worker_id(worker_id);
  lease_request.set_max_tasks(max_tasks);
  lease_request.set_wait_ms(wait_ms);
  v1::LeaseResponse lease;
  grpc::Status status = stubs.workers->Lease(Authed().get(), lease_request, &lease);
  if (!status.ok()) return rpc::FromGrpc(status);
  if (lease.tasks().empty()) return 0;
  v1::ReportRequest report;
  report.set_worker_id(worker_id);
  report.set_lease_id(lease.lease_id());
  // Different times per task, so that there is one best.
  for (int i = 0; i < lease.tasks_size(); ++i)
    *report.add_results() = GoodResult(lease.tasks(i).task_id(), 1e-5 * (1 + i));
  v1::ReportResponse reported;
  status = stubs.workers->Report(Authed().get(), report, &reported);
  if (!status.ok()) return rpc::FromGrpc(status);
  return lease.tasks_size();
}

absl::StatusOr<v1::Job> RunJobToCompletion(Stubs& stubs, const v1::JobSpec& spec, absl::Duration timeout) {
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = spec;
  v1::SubmitJobResponse submitted;
  grpc::Status status = stubs.jobs->Submit(Authed().get(), submit, &submitted);
  if (!status.ok()) return rpc::FromGrpc(status);
  absl::StatusOr<std::string> worker = RegisterWorker(stubs);
  if (!worker.ok()) return worker.status();
  absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    absl::StatusOr<int> measured = LeaseAndReport(stubs, *worker, 16, 200);
    if (!measured.ok()) return measured.status();
    v1::GetJobRequest get;
    get.set_id(submitted.job().id());
    v1::GetJobResponse got;
    status = stubs.jobs->Get(Authed().get(), get, &got);
    if (!status.ok()) return rpc::FromGrpc(status);
    if (got.job().state() != v1::JOB_STATE_RUNNING && got.job().state() != v1::JOB_STATE_QUEUED) return got.job();
  }
  return absl::DeadlineExceededError(absl::StrCat("job ", submitted.job().id(), " did not finish in time"));
}

}  // namespace tuneforge::server::testing
