#include "client/api/workers_client.h"

namespace tuneforge::client {

WorkersClient::WorkersClient(Connection connection)
    : connection_(std::move(connection)), stub_(v1::Workers::NewStub(connection_.channel())) {}

absl::StatusOr<std::vector<v1::WorkerStatus>> WorkersClient::List() {
  v1::ListWorkersRequest request;
  v1::ListWorkersResponse response;
  auto context = connection_.Context(CallKind::kUnary);
  absl::Status s = connection_.Check(stub_->List(context.get(), request, &response));
  if (!s.ok()) return s;
  return std::vector<v1::WorkerStatus>(response.workers().begin(), response.workers().end());
}

}  // namespace tuneforge::client
