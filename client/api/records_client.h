// Typed calls of the Records service: best, query, export and import (the
// last two as JSON lines, the format of server::RecordToJsonLine).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/api/connection.h"
#include "proto/tuneforge.grpc.pb.h"

namespace tuneforge::client {

namespace v1 = ::tuneforge::v1;

class RecordsClient {
 public:
  explicit RecordsClient(Connection connection);

  // The fastest correct record of the workload (by key) on the device ("":
  // any device); nullopt when there is none.
  absl::StatusOr<std::optional<v1::Record>> Best(const std::string& workload_key,
                                                 const std::string& device_key);
  absl::StatusOr<std::vector<v1::Record>> Query(const v1::QueryRecordsRequest& request);
  // Calls `line` for each exported record, oldest first; returns how many.
  absl::StatusOr<int64_t> Export(const v1::ExportRecordsRequest& request,
                                 const std::function<void(const std::string& line)>& line);
  // Sends the lines in chunks of `chunk` lines in one stream.
  absl::StatusOr<v1::ImportRecordsResponse> Import(const std::vector<std::string>& lines,
                                                   int chunk = 512);

 private:
  Connection connection_;
  std::unique_ptr<v1::Records::Stub> stub_;
};

}  // namespace tuneforge::client
