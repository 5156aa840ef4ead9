// Typed calls of the Workers service that users make: the list of workers.
// (Register, lease and report are the worker agent's.)
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "client/api/connection.h"
#include "proto/tuneforge.grpc.pb.h"

namespace tuneforge::client {

namespace v1 = ::tuneforge::v1;

class WorkersClient {
 public:
  explicit WorkersClient(Connection connection);

  absl::StatusOr<std::vector<v1::WorkerStatus>> List();

 private:
  Connection connection_;
  std::unique_ptr<v1::Workers::Stub> stub_;
};

}  // namespace tuneforge::client
