// Malformed and unknown Workers requests: refused with the field named;
// leases long-poll within their cap; the server keeps serving.
#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/server/service/refusals.h"
#include "tests/server/service/rpc_calls.h"

namespace tuneforge::server::testing {
namespace {

using Code = grpc::StatusCode;
using ::testing::HasSubstr;

class WorkersRequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<TestServer>> server = TestServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    absl::StatusOr<std::string> worker = RegisterWorker(server_->stubs());
    ASSERT_TRUE(worker.ok()) << worker.status();
    worker_id_ = *worker;
  }
  std::unique_ptr<TestServer> server_;
  std::string worker_id_;
};

std::function<grpc::Status(Stubs&)> RegisterWith(const std::function<void(v1::DeviceInfo&)>& change) {
  v1::RegisterWorkerRequest request;
  *request.mutable_device() = Changed(TestDevice(), change);
  return [request](Stubs& s) { return CallRegister(s, Authed().get(), request); };
}

v1::ReportRequest BaseReport() {
  v1::ReportRequest report;
  report.set_worker_id("w1-1234");
  report.set_lease_id("l1");
  *report.add_results() = GoodResult("t1");
  *report.add_results() = GoodResult("t2");
  return report;
}

std::function<grpc::Status(Stubs&)> ReportWith(const std::function<void(v1::ReportRequest&)>& change) {
  v1::ReportRequest request = Changed(BaseReport(), change);
  return [request](Stubs& s) { return CallReport(s, Authed().get(), request); };
}

TEST_F(WorkersRequestsTest, TheBaseRequestsAreAccepted) {
  EXPECT_TRUE(RegisterWith([](v1::DeviceInfo&) {})(server_->stubs()).ok());
  // Results for tasks the server does not know are counted as rejected, not refused.
  v1::ReportResponse reported;
  ASSERT_TRUE(server_->stubs().workers->Report(Authed().get(), BaseReport(), &reported).ok());
  EXPECT_EQ(reported.rejected(), 2);
}

TEST_F(WorkersRequestsTest, MalformedRegistrationsAreRefusedNamingTheField) {
  std::vector<Refusal> cases = {
      {"no device", [](Stubs& s) { return CallRegister(s, Authed().get(), {}); }, Code::INVALID_ARGUMENT,
       "device is required"},
      {"no device key", RegisterWith([](v1::DeviceInfo& d) { d.clear_device_key(); }), Code::INVALID_ARGUMENT,
       "device.device_key is required"},
      {"device key too long", RegisterWith([](v1::DeviceInfo& d) { d.set_device_key(std::string(129, 'k')); }),
       Code::INVALID_ARGUMENT, "device.device_key is 129 bytes long"},
      {"no triple", RegisterWith([](v1::DeviceInfo& d) { d.clear_triple(); }), Code::INVALID_ARGUMENT,
       "device.triple must be an LLVM target triple"},
      {"zero cores", RegisterWith([](v1::DeviceInfo& d) { d.set_cores(0); }), Code::INVALID_ARGUMENT,
       "device.cores must be 1..65536, got 0"},
      {"negative cache", RegisterWith([](v1::DeviceInfo& d) { d.set_l2_bytes(-1); }), Code::INVALID_ARGUMENT,
       "device.l2_bytes must be 0..1099511627776, got -1"},
      {"hostname with newline", RegisterWith([](v1::DeviceInfo& d) { d.set_hostname("a\nb"); }),
       Code::INVALID_ARGUMENT, "device.hostname contains a control character"},
      {"huge features", RegisterWith([](v1::DeviceInfo& d) { d.set_features(std::string(5000, 'f')); }),
       Code::INVALID_ARGUMENT, "device.features is 5000 bytes long"},
  };
  ExpectRefusals(*server_, cases);
}

TEST_F(WorkersRequestsTest, MalformedLeasesHeartbeatsAndDeregistrationsAreRefused) {
  auto lease = [](std::string worker_id, int max_tasks, int wait_ms) {
    v1::LeaseRequest r;
    r.set_worker_id(worker_id);
    r.set_max_tasks(max_tasks);
    r.set_wait_ms(wait_ms);
    return [r](Stubs& s) { return CallLease(s, Authed().get(), r); };
  };
  auto heartbeat = [](std::string worker_id) {
    v1::HeartbeatRequest r;
    r.set_worker_id(worker_id);
    return [r](Stubs& s) { return CallHeartbeat(s, Authed().get(), r); };
  };
  auto deregister = [](std::string worker_id) {
    v1::DeregisterWorkerRequest r;
    r.set_worker_id(worker_id);
    return [r](Stubs& s) { return CallDeregister(s, Authed().get(), r); };
  };
  std::vector<Refusal> cases = {
      {"lease without worker", lease("", 1, 0), Code::INVALID_ARGUMENT, "worker_id is required"},
      {"lease zero tasks", lease(worker_id_, 0, 0), Code::INVALID_ARGUMENT, "max_tasks must be 1..256, got 0"},
      {"lease too many tasks", lease(worker_id_, 257, 0), Code::INVALID_ARGUMENT,
       "max_tasks must be 1..256, got 257"},
      {"lease negative wait", lease(worker_id_, 1, -1), Code::INVALID_ARGUMENT, "wait_ms must be >= 0, got -1"},
      {"lease unknown worker", lease("w-unknown", 1, 0), Code::NOT_FOUND, "worker_id: no worker 'w-unknown'"},
      {"heartbeat without worker", heartbeat(""), Code::INVALID_ARGUMENT, "worker_id is required"},
      {"deregister without worker", deregister(""), Code::INVALID_ARGUMENT, "worker_id is required"},
      {"deregister unknown worker", deregister("w-unknown"), Code::NOT_FOUND, "worker_id: no worker 'w-unknown'"},
  };
  ExpectRefusals(*server_, cases);
}

TEST_F(WorkersRequestsTest, MalformedReportsAreRefusedNamingTheField) {
  static const double nan = std::nan("");
  static const double inf = std::numeric_limits<double>::infinity();
  std::vector<Refusal> cases = {
      {"no worker", ReportWith([](v1::ReportRequest& r) { r.clear_worker_id(); }), Code::INVALID_ARGUMENT,
       "worker_id is required"},
      {"no lease", ReportWith([](v1::ReportRequest& r) { r.clear_lease_id(); }), Code::INVALID_ARGUMENT,
       "lease_id is required"},
      {"no results", ReportWith([](v1::ReportRequest& r) { r.clear_results(); }), Code::INVALID_ARGUMENT,
       "results is empty"},
      {"too many results",
       ReportWith([](v1::ReportRequest& r) {
         for (int i = 0; i < 1023; ++i) *r.add_results() = GoodResult(absl::StrCat("x", i));
       }),
       Code::INVALID_ARGUMENT, "results has 1025 results; at most 1024"},
      {"no task id", ReportWith([](v1::ReportRequest& r) { r.mutable_results(1)->clear_task_id(); }),
       Code::INVALID_ARGUMENT, "results[1].task_id is required"},
      {"same task twice", ReportWith([](v1::ReportRequest& r) { r.mutable_results(1)->set_task_id("t1"); }),
       Code::INVALID_ARGUMENT, "results[1].task_id 't1' appears twice"},
      {"unknown error kind",
       ReportWith([](v1::ReportRequest& r) { r.mutable_results(0)->set_error_kind(static_cast<v1::MeasureErrorKind>(99)); }),
       Code::INVALID_ARGUMENT, "results[0].error_kind is 99, not an error kind; use one of none, invalid_schedule"},
      {"unset error kind", ReportWith([](v1::ReportRequest& r) { r.mutable_results(0)->clear_error_kind(); }),
       Code::INVALID_ARGUMENT, "results[0].error_kind is not set; use one of none, invalid_schedule"},
      {"negative time", ReportWith([](v1::ReportRequest& r) { r.mutable_results(0)->set_median_seconds(-1); }),
       Code::INVALID_ARGUMENT, "results[0].median_seconds must be a number in 0..1000000, got -1"},
      {"time not a number", ReportWith([](v1::ReportRequest& r) { r.mutable_results(0)->set_median_seconds(nan); }),
       Code::INVALID_ARGUMENT, "results[0].median_seconds must be a number"},
      {"good result without time", ReportWith([](v1::ReportRequest& r) { r.mutable_results(0)->set_median_seconds(0); }),
       Code::INVALID_ARGUMENT, "results[0].median_seconds must be > 0 for a result with error_kind 'none'"},
      {"infinite repeat", ReportWith([](v1::ReportRequest& r) {
         r.mutable_results(1)->add_repeat_seconds(1);
         r.mutable_results(1)->add_repeat_seconds(inf);
       }),
       Code::INVALID_ARGUMENT, "results[1].repeat_seconds[2] must be a number"},
      {"negative compile time", ReportWith([](v1::ReportRequest& r) { r.mutable_results(0)->set_compile_ms(-3); }),
       Code::INVALID_ARGUMENT, "results[0].compile_ms must be a number"},
      {"negative error", ReportWith([](v1::ReportRequest& r) { r.mutable_results(0)->set_max_abs_error(-1); }),
       Code::INVALID_ARGUMENT, "results[0].max_abs_error must be >= 0, got -1"},
      {"huge error text",
       ReportWith([](v1::ReportRequest& r) { r.mutable_results(0)->set_error(std::string(70000, 'e')); }),
       Code::INVALID_ARGUMENT, "results[0].error is 70000 bytes"},
  };
  ExpectRefusals(*server_, cases);
}

TEST_F(WorkersRequestsTest, AnErrorResultNeedsNoTimeAndMayCarryNaNError) {
  v1::ReportRequest report = BaseReport();
  v1::MeasureResult* r = report.mutable_results(0);
  r->set_error_kind(v1::MEASURE_ERROR_KIND_WRONG_ANSWER);
  r->set_error("output 3 differs");
  r->set_median_seconds(0);
  r->set_max_abs_error(std::nan(""));
  EXPECT_TRUE(CallReport(server_->stubs(), Authed().get(), report).ok());
}

TEST_F(WorkersRequestsTest, LeaseLongPollsAtMostTheCapAndTheClientsDeadline) {
  v1::LeaseRequest request;
  request.set_worker_id(worker_id_);
  request.set_max_tasks(4);
  request.set_wait_ms(700);
  v1::LeaseResponse lease;
  absl::Time start = absl::Now();
  ASSERT_TRUE(server_->stubs().workers->Lease(Authed().get(), request, &lease).ok());
  absl::Duration waited = absl::Now() - start;
  EXPECT_TRUE(lease.lease_id().empty());  // no job, no work
  EXPECT_GE(waited, absl::Milliseconds(650));
  // A minute is asked for; the client's 1.5 s deadline wins and the answer
  // (empty) comes before it rather than a DEADLINE_EXCEEDED.
  request.set_wait_ms(60000);
  start = absl::Now();
  grpc::Status status = server_->stubs().workers->Lease(Authed(absl::Milliseconds(1500)).get(), request, &lease);
  waited = absl::Now() - start;
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_LT(waited, absl::Milliseconds(1500));
  EXPECT_GE(waited, absl::Milliseconds(1000));
}

TEST_F(WorkersRequestsTest, RegisterLeaseReportHeartbeatDeregister) {
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = SmallJobSpec(8);
  ASSERT_TRUE(CallSubmit(server_->stubs(), Authed().get(), submit).ok());
  absl::StatusOr<int> measured = LeaseAndReport(server_->stubs(), worker_id_, 3, 5000);
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_EQ(*measured, 3);

  v1::HeartbeatRequest heartbeat;
  heartbeat.set_worker_id(worker_id_);
  v1::HeartbeatResponse beat;
  ASSERT_TRUE(server_->stubs().workers->Heartbeat(Authed().get(), heartbeat, &beat).ok());
  EXPECT_TRUE(beat.known());

  v1::ListWorkersResponse workers;
  ASSERT_TRUE(server_->stubs().workers->List(Authed().get(), {}, &workers).ok());
  ASSERT_EQ(workers.workers_size(), 1);
  EXPECT_EQ(workers.workers(0).id(), worker_id_);
  EXPECT_EQ(workers.workers(0).device().device_key(), kDeviceKey);
  EXPECT_EQ(workers.workers(0).measured(), 3);

  // Hold a lease, then deregister: its tasks go back.
  v1::LeaseRequest lease_request;
  lease_request.set_worker_id(worker_id_);
  lease_request.set_max_tasks(2);
  lease_request.set_wait_ms(5000);
  v1::LeaseResponse lease;
  ASSERT_TRUE(server_->stubs().workers->Lease(Authed().get(), lease_request, &lease).ok());
  // The last task of the first round of 4 (the next round starts once
  // this one is measured).
  ASSERT_EQ(lease.tasks_size(), 1);
  v1::DeregisterWorkerRequest deregister;
  deregister.set_worker_id(worker_id_);
  v1::DeregisterWorkerResponse gone;
  ASSERT_TRUE(server_->stubs().workers->Deregister(Authed().get(), deregister, &gone).ok());
  EXPECT_EQ(gone.returned_tasks(), 1);
  ASSERT_TRUE(server_->stubs().workers->Heartbeat(Authed().get(), heartbeat, &beat).ok());
  EXPECT_FALSE(beat.known());
}

}  // namespace
}  // namespace tuneforge::server::testing
