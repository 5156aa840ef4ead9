#include "worker/agent/worker_client.h"

#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"

namespace tuneforge::worker {
namespace {

// A server without work holds a Lease for up to wait_ms; on top of that the
// server may build objects for a runner-only worker before it answers.
constexpr absl::Duration kLeaseSlack = absl::Seconds(60);
constexpr absl::Duration kRegisterDeadline = absl::Seconds(30);

}  // namespace

WorkerClient::WorkerClient(std::shared_ptr<grpc::Channel> channel, std::string token,
                           std::string address, rpc::Transport transport)
    : stub_(v1::Workers::NewStub(std::move(channel))),
      token_(std::move(token)),
      address_(std::move(address)),
      transport_(transport) {}

absl::StatusOr<v1::RegisterWorkerResponse> WorkerClient::Register(const v1::DeviceInfo& device) {
  v1::RegisterWorkerRequest request;
  *request.mutable_device() = device;
  v1::RegisterWorkerResponse response;
  auto context = rpc::MakeContext(token_, kRegisterDeadline);
  absl::Status status =
      rpc::FromGrpc(stub_->Register(context.get(), request, &response), address_, transport_);
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::HeartbeatResponse> WorkerClient::Heartbeat(const std::string& worker_id,
                                                              absl::Duration deadline) {
  v1::HeartbeatRequest request;
  request.set_worker_id(worker_id);
  v1::HeartbeatResponse response;
  auto context = rpc::MakeContext(token_, deadline);
  absl::Status status =
      rpc::FromGrpc(stub_->Heartbeat(context.get(), request, &response), address_, transport_);
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::LeaseResponse> WorkerClient::Lease(const std::string& worker_id, int max_tasks,
                                                      int wait_ms) {
  v1::LeaseRequest request;
  request.set_worker_id(worker_id);
  request.set_max_tasks(max_tasks);
  request.set_wait_ms(wait_ms);
  v1::LeaseResponse response;
  auto context = rpc::MakeContext(token_, absl::Milliseconds(wait_ms) + kLeaseSlack);
  {
    absl::MutexLock lock(&mu_);
    if (leases_cancelled_) return absl::CancelledError("the worker is stopping");
    lease_in_flight_ = context.get();
  }
  grpc::Status grpc_status = stub_->Lease(context.get(), request, &response);
  {
    absl::MutexLock lock(&mu_);
    lease_in_flight_ = nullptr;
  }
  absl::Status status = rpc::FromGrpc(grpc_status, address_, transport_);
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::ReportResponse> WorkerClient::Report(const v1::ReportRequest& request,
                                                        absl::Duration deadline) {
  v1::ReportResponse response;
  auto context = rpc::MakeContext(token_, deadline);
  absl::Status status =
      rpc::FromGrpc(stub_->Report(context.get(), request, &response), address_, transport_);
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::DeregisterWorkerResponse> WorkerClient::Deregister(const std::string& worker_id,
                                                                      absl::Duration deadline) {
  v1::DeregisterWorkerRequest request;
  request.set_worker_id(worker_id);
  v1::DeregisterWorkerResponse response;
  auto context = rpc::MakeContext(token_, deadline);
  absl::Status status =
      rpc::FromGrpc(stub_->Deregister(context.get(), request, &response), address_, transport_);
  if (!status.ok()) return status;
  return response;
}

void WorkerClient::CancelLeases() {
  absl::MutexLock lock(&mu_);
  leases_cancelled_ = true;
  if (lease_in_flight_ != nullptr) lease_in_flight_->TryCancel();
}

bool IsUnreachable(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status);
}

bool IsAuthFailure(const absl::Status& status) {
  return absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status);
}

absl::Status RefusalError(const std::string& address, const absl::Status& status) {
  if (absl::IsPermissionDenied(status))
    return absl::FailedPreconditionError(absl::StrCat(
        "the server at ", address, " cannot store this worker's results (", status.message(),
        "): its database is read-only or not writable; make the server's --db file and folder writable and "
        "restart tuneforge-server"));
  return absl::UnauthenticatedError(absl::StrCat("the server at ", address, " refused this worker's token (",
                                                 status.message(),
                                                 "); give the server's token with --token-file FILE or "
                                                 "TUNEFORGE_TOKEN"));
}

}  // namespace tuneforge::worker
