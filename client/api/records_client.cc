#include "client/api/records_client.h"

#include <algorithm>

namespace tuneforge::client {

RecordsClient::RecordsClient(Connection connection)
    : connection_(std::move(connection)), stub_(v1::Records::NewStub(connection_.channel())) {}

absl::StatusOr<std::optional<v1::Record>> RecordsClient::Best(const std::string& workload_key,
                                                              const std::string& device_key) {
  v1::BestRequest request;
  request.set_workload_key(workload_key);
  request.set_device_key(device_key);
  v1::BestResponse response;
  auto context = connection_.Context(CallKind::kUnary);
  absl::Status s = connection_.Check(stub_->Best(context.get(), request, &response));
  if (!s.ok()) return s;
  if (!response.found()) return std::optional<v1::Record>();
  return std::optional<v1::Record>(response.record());
}

absl::StatusOr<std::vector<v1::Record>> RecordsClient::Query(const v1::QueryRecordsRequest& request) {
  v1::QueryRecordsResponse response;
  auto context = connection_.Context(CallKind::kUnary);
  absl::Status s = connection_.Check(stub_->Query(context.get(), request, &response));
  if (!s.ok()) return s;
  return std::vector<v1::Record>(response.records().begin(), response.records().end());
}

absl::StatusOr<int64_t> RecordsClient::Export(const v1::ExportRecordsRequest& request,
                                              const std::function<void(const std::string&)>& line) {
  auto context = connection_.Context(CallKind::kBulk);
  std::unique_ptr<grpc::ClientReader<v1::RecordLines>> reader = stub_->Export(context.get(), request);
  v1::RecordLines chunk;
  int64_t count = 0;
  while (reader->Read(&chunk)) {
    for (const std::string& l : chunk.lines()) line(l);
    count += chunk.lines_size();
  }
  absl::Status s = connection_.Check(reader->Finish());
  if (!s.ok()) return s;
  return count;
}

absl::StatusOr<v1::ImportRecordsResponse> RecordsClient::Import(const std::vector<std::string>& lines,
                                                                int chunk) {
  auto context = connection_.Context(CallKind::kBulk);
  v1::ImportRecordsResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::RecordLines>> writer =
      stub_->Import(context.get(), &response);
  chunk = std::max(chunk, 1);
  for (size_t begin = 0; begin < lines.size(); begin += chunk) {
    v1::RecordLines message;
    size_t end = std::min(lines.size(), begin + chunk);
    for (size_t i = begin; i < end; ++i) message.add_lines(lines[i]);
    // A failed write means the server ended the call; Finish says why.
    if (!writer->Write(message)) break;
  }
  writer->WritesDone();
  absl::Status s = connection_.Check(writer->Finish());
  if (!s.ok()) return s;
  return response;
}

}  // namespace tuneforge::client
