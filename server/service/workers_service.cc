// The Workers service: straight to the Dispatcher. Lease is a long poll,
// cut to limits::kMaxLeaseWaitMs and to the client's own deadline.
#include <algorithm>
#include <chrono>

#include "server/service/field_checks.h"
#include "server/service/handle_call.h"
#include "server/service/limits.h"
#include "server/service/request_checks.h"
#include "server/service/services.h"

namespace tuneforge::server {
namespace {

// How long a Lease may wait for work: what the worker asked, at most the
// cap, and short enough to answer before the client's deadline (with a
// margin for the answer to travel).
int LeaseWaitMs(int requested_ms, const grpc::ServerContext& context) {
  constexpr int64_t kAnswerMarginMs = 200;
  int64_t wait = std::min<int64_t>(requested_ms, limits::kMaxLeaseWaitMs);
  auto left = context.deadline() - std::chrono::system_clock::now();
  int64_t left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(left).count();
  wait = std::min(wait, left_ms - kAnswerMarginMs);
  return static_cast<int>(std::max<int64_t>(wait, 0));
}

class WorkersService final : public v1::Workers::Service {
 public:
  explicit WorkersService(const ServiceDeps& deps)
      : dispatcher_(*deps.dispatcher), env_{deps.token, deps.log_calls} {}

  grpc::Status Register(grpc::ServerContext* context, const v1::RegisterWorkerRequest* request,
                        v1::RegisterWorkerResponse* response) override {
    return HandleCall(env_, context, "Workers.Register", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckRegisterWorker(*request));
      absl::StatusOr<Registration> registered = dispatcher_.Register(FromProto(request->device()));
      if (!registered.ok()) return registered.status();
      *response = ToProto(*registered);
      return absl::OkStatus();
    });
  }

  grpc::Status Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                         v1::HeartbeatResponse* response) override {
    return HandleCall(env_, context, "Workers.Heartbeat", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckWorkerId(request->worker_id()));
      response->set_known(dispatcher_.Heartbeat(request->worker_id()));
      return absl::OkStatus();
    });
  }

  grpc::Status Lease(grpc::ServerContext* context, const v1::LeaseRequest* request,
                     v1::LeaseResponse* response) override {
    return HandleCall(env_, context, "Workers.Lease", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckLease(*request));
      absl::StatusOr<LeaseGrant> lease = dispatcher_.Lease(
          request->worker_id(), request->max_tasks(), LeaseWaitMs(request->wait_ms(), *context));
      if (!lease.ok()) return NameNotFoundField("worker_id", lease.status());
      *response = ToProto(*lease);
      return absl::OkStatus();
    });
  }

  grpc::Status Report(grpc::ServerContext* context, const v1::ReportRequest* request,
                      v1::ReportResponse* response) override {
    return HandleCall(env_, context, "Workers.Report", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckReport(*request));
      absl::StatusOr<WorkerReport> report = FromProto(*request);
      if (!report.ok()) return report.status();
      absl::StatusOr<ReportOutcome> outcome = dispatcher_.Report(*report);
      if (!outcome.ok()) return NameNotFoundField("worker_id", outcome.status());
      *response = ToProto(*outcome);
      return absl::OkStatus();
    });
  }

  grpc::Status Deregister(grpc::ServerContext* context, const v1::DeregisterWorkerRequest* request,
                          v1::DeregisterWorkerResponse* response) override {
    return HandleCall(env_, context, "Workers.Deregister", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckWorkerId(request->worker_id()));
      absl::StatusOr<int> returned = dispatcher_.Deregister(request->worker_id());
      if (!returned.ok()) return NameNotFoundField("worker_id", returned.status());
      response->set_returned_tasks(*returned);
      return absl::OkStatus();
    });
  }

  grpc::Status List(grpc::ServerContext* context, const v1::ListWorkersRequest* request,
                    v1::ListWorkersResponse* response) override {
    return HandleCall(env_, context, "Workers.List", [&]() -> absl::Status {
      for (const WorkerStatus& worker : dispatcher_.ListWorkers()) *response->add_workers() = ToProto(worker);
      return absl::OkStatus();
    });
  }

 private:
  Dispatcher& dispatcher_;
  const CallEnv env_;
};

}  // namespace

std::unique_ptr<v1::Workers::Service> MakeWorkersService(const ServiceDeps& deps) {
  return std::make_unique<WorkersService>(deps);
}

}  // namespace tuneforge::server
