// The worker's side of the Workers service: one method per RPC, each with
// the token, a deadline and the gRPC status turned into absl::Status. A
// Lease waiting on the server can be cancelled from another thread (Stop).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/rpc/channel.h"
#include "grpcpp/grpcpp.h"
#include "proto/tuneforge.grpc.pb.h"

namespace tuneforge::worker {

namespace v1 = ::tuneforge::v1;

class WorkerClient {
 public:
  // `transport` only words the errors of an unreachable server.
  WorkerClient(std::shared_ptr<grpc::Channel> channel, std::string token, std::string address,
               rpc::Transport transport = rpc::Transport::kUnknown);

  absl::StatusOr<v1::RegisterWorkerResponse> Register(const v1::DeviceInfo& device);
  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(const std::string& worker_id,
                                                  absl::Duration deadline);
  // CANCELLED once CancelLeases was called.
  absl::StatusOr<v1::LeaseResponse> Lease(const std::string& worker_id, int max_tasks,
                                          int wait_ms);
  absl::StatusOr<v1::ReportResponse> Report(const v1::ReportRequest& request,
                                            absl::Duration deadline);
  absl::StatusOr<v1::DeregisterWorkerResponse> Deregister(const std::string& worker_id,
                                                          absl::Duration deadline);

  // Cancels the Lease in flight, if any, and makes every later Lease return
  // CANCELLED at once. Thread-safe.
  void CancelLeases();

  const std::string& address() const { return address_; }

 private:
  std::unique_ptr<v1::Workers::Stub> stub_;
  std::string token_;
  std::string address_;
  rpc::Transport transport_;
  absl::Mutex mu_;
  grpc::ClientContext* lease_in_flight_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool leases_cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

// The server could not be reached or did not answer in time: retry later.
bool IsUnreachable(const absl::Status& status);
// The server refused this worker for good (its token, or the server
// cannot store results): retrying cannot help.
bool IsAuthFailure(const absl::Status& status);
// The error a worker stops with when the server refuses it for good: its
// token (UNAUTHENTICATED), or the server cannot store anything
// (PERMISSION_DENIED: a read-only database), each naming the fix.
absl::Status RefusalError(const std::string& address, const absl::Status& status);

}  // namespace tuneforge::worker
