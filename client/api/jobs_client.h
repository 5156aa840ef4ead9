// Typed calls of the Jobs service: submit, get, cancel, list, watch.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/api/call_canceller.h"
#include "client/api/connection.h"
#include "proto/tuneforge.grpc.pb.h"

namespace tuneforge::client {

namespace v1 = ::tuneforge::v1;

class JobsClient {
 public:
  explicit JobsClient(Connection connection);

  absl::StatusOr<v1::Job> Submit(const v1::JobSpec& spec);
  absl::StatusOr<v1::Job> Get(const std::string& id);
  absl::StatusOr<v1::Job> Cancel(const std::string& id);
  absl::StatusOr<std::vector<v1::Job>> List(v1::JobState state, int limit);

  // Streams the job's progress, calling `on_progress` for each update, until
  // the server ends the stream (the job finished). Returns the last update.
  // A canceller that fires ends it with CANCELLED.
  absl::StatusOr<v1::JobProgress> Watch(const std::string& id,
                                        const std::function<void(const v1::JobProgress&)>& on_progress,
                                        CallCanceller* canceller = nullptr);

  const Connection& connection() const { return connection_; }

 private:
  Connection connection_;
  std::unique_ptr<v1::Jobs::Stub> stub_;
};

// "queued", "running", "done", "failed", "cancelled" (INTERFACE.md).
const char* JobStateName(v1::JobState state);
bool IsFinished(v1::JobState state);

}  // namespace tuneforge::client
