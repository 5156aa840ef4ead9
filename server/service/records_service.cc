// The Records service: best, query, and export / import as JSON lines.
#include <utility>

#include "absl/strings/ascii.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/method_handler.h"
#include "absl/strings/str_cat.h"
#include "server/core/workload_cache.h"
#include "server/service/field_checks.h"
#include "server/service/handle_call.h"
#include "server/service/import_checks.h"
#include "server/service/limits.h"
#include "server/service/request_checks.h"
#include "server/service/services.h"

namespace tuneforge::server {
namespace {

// The key of a request's workload, parsed as a job's workloads are.
absl::StatusOr<std::string> WorkloadKeyOf(const v1::Workload& workload) {
  absl::StatusOr<te::Workload> parsed = measure::ParseWorkloadSource(FromProto(workload));
  if (!parsed.ok())
    return FieldError(workload.has_spec() ? "workload.spec:" : "workload.definition:",
                      std::string(parsed.status().message()));
  return parsed->dag->workload_key();
}

RecordFilter ToFilter(const v1::QueryRecordsRequest& request) {
  RecordFilter filter;
  filter.workload_key = request.workload_key();
  filter.device_key = request.device_key();
  filter.job_id = request.job_id();
  filter.only_ok = request.only_ok();
  filter.limit = request.limit() == 0 ? limits::kDefaultQueryLimit : request.limit();
  filter.fastest_first = request.fastest_first();
  return filter;
}

// Collects exported lines into chunks of at most kExportChunkLines lines
// or about kExportChunkBytes, and writes each full chunk to the stream.
class ChunkWriter {
 public:
  ChunkWriter(grpc::ServerContext& context, grpc::ServerWriter<v1::RecordLines>& writer)
      : context_(context), writer_(writer) {}

  // False once the client is gone: the export stops.
  bool Add(const std::string& line) {
    bytes_ += static_cast<int64_t>(line.size());
    chunk_.add_lines(line);
    if (chunk_.lines_size() >= limits::kExportChunkLines || bytes_ >= limits::kExportChunkBytes) return Flush();
    return true;
  }
  bool Flush() {
    if (chunk_.lines().empty()) return true;
    bool ok = !context_.IsCancelled() && writer_.Write(chunk_);
    chunk_.Clear();
    bytes_ = 0;
    client_gone_ = client_gone_ || !ok;
    return ok;
  }
  bool client_gone() const { return client_gone_; }

 private:
  grpc::ServerContext& context_;
  grpc::ServerWriter<v1::RecordLines>& writer_;
  v1::RecordLines chunk_;
  int64_t bytes_ = 0;
  bool client_gone_ = false;
};

// Reads an import stream. Every line is parsed as it arrives, so an error
// names its line in the whole stream; lines are stored in batches of up to
// kMaxImportChunkBytes, each all-or-nothing (an import up to that size is
// one transaction).
class ImportSession {
 public:
  explicit ImportSession(RecordStore& store) : store_(store) {}

  absl::Status AddChunk(const v1::RecordLines& chunk, int chunk_index) {
    int64_t chunk_bytes = 0;
    for (const std::string& line : chunk.lines()) chunk_bytes += static_cast<int64_t>(line.size());
    if (chunk_bytes > limits::kMaxImportChunkBytes)
      return FieldError(Indexed("chunks", chunk_index),
                        absl::StrCat("holds ", chunk_bytes, " bytes of lines; send chunks of at most ",
                                     limits::kMaxImportChunkBytes));
    for (const std::string& line : chunk.lines()) {
      ++line_number_;
      if (static_cast<int64_t>(line.size()) > limits::kMaxImportLineBytes)
        return LineError(absl::StrCat("too long (", line.size(), " bytes); a record line is at most ",
                                      limits::kMaxImportLineBytes, " bytes"));
      if (absl::StripAsciiWhitespace(line).empty()) continue;  // as the store does: blank lines are no records
      absl::StatusOr<Record> record = RecordFromJsonLine(line);
      absl::Status s = record.ok() ? checker_.Check(*record) : record.status();
      if (!s.ok()) return LineError(s.message());
      batch_.push_back(line);
      batch_bytes_ += static_cast<int64_t>(line.size());
    }
    if (batch_bytes_ >= limits::kMaxImportChunkBytes) return StoreBatch();
    return absl::OkStatus();
  }

  absl::StatusOr<v1::ImportRecordsResponse> Finish() {
    TF_RETURN_IF_ERROR(StoreBatch());
    return response_;
  }

 private:
  absl::Status LineError(absl::string_view problem) const {
    std::string stored_before =
        stored_lines_ == 0 ? ""
                           : absl::StrCat(" (lines 1..", stored_lines_,
                                          " were stored; importing the fixed file again skips them as "
                                          "duplicates)");
    return absl::InvalidArgumentError(absl::StrCat("line ", line_number_, ": ", problem, stored_before));
  }

  absl::Status StoreBatch() {
    if (batch_.empty()) return absl::OkStatus();
    absl::StatusOr<AddOutcome> outcome = store_.Import(batch_);
    if (!outcome.ok()) return outcome.status();
    response_.set_imported(response_.imported() + outcome->accepted);
    response_.set_duplicate(response_.duplicate() + outcome->duplicate);
    stored_lines_ += static_cast<int64_t>(batch_.size());
    batch_.clear();
    batch_bytes_ = 0;
    return absl::OkStatus();
  }

  RecordStore& store_;
  ImportChecker checker_;
  std::vector<std::string> batch_;
  int64_t batch_bytes_ = 0;
  int64_t line_number_ = 0;
  int64_t stored_lines_ = 0;
  v1::ImportRecordsResponse response_;
};

// An import chunk as the bytes that came: the generated reader takes a chunk
// that does not decode for the end of the stream, and the call would store
// a partial import and succeed.
absl::StatusOr<v1::RecordLines> DecodeChunk(const grpc::ByteBuffer& bytes, int chunk_index) {
  std::vector<grpc::Slice> slices;
  v1::RecordLines chunk;
  std::string data;
  if (bytes.Dump(&slices).ok())
    for (const grpc::Slice& slice : slices) data.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  if (!chunk.ParseFromString(data))
    return FieldError(Indexed("chunks", chunk_index),
                      "is not a RecordLines message (a line that is not UTF-8, or bytes that are no "
                      "protobuf); nothing of this import was stored");
  return chunk;
}

class RecordsService final : public v1::Records::Service {
 public:
  explicit RecordsService(const ServiceDeps& deps) : store_(*deps.store), env_{deps.token, deps.log_calls} {
    // Import reads raw chunks (DecodeChunk); the method's index is its place
    // in the proto, as the generated constructor added it.
    const int import_index =
        v1::RecordLines::descriptor()->file()->FindServiceByName("Records")->FindMethodByName("Import")->index();
    MarkMethodStreamed(import_index,
                       new grpc::internal::ClientStreamingHandler<RecordsService, grpc::ByteBuffer,
                                                                  v1::ImportRecordsResponse>(
                           [](RecordsService* service, grpc::ServerContext* context,
                              grpc::ServerReader<grpc::ByteBuffer>* reader, v1::ImportRecordsResponse* response) {
                             return service->ImportChunks(context, reader, response);
                           },
                           this));
  }

  grpc::Status Best(grpc::ServerContext* context, const v1::BestRequest* request,
                    v1::BestResponse* response) override {
    return HandleCall(env_, context, "Records.Best", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckBest(*request));
      std::string key = request->workload_key();
      if (request->has_workload()) {
        absl::StatusOr<std::string> parsed_key = WorkloadKeyOf(request->workload());
        if (!parsed_key.ok()) return parsed_key.status();
        key = *std::move(parsed_key);
      }
      absl::StatusOr<std::optional<Record>> best = store_.Best(key, request->device_key());
      if (!best.ok()) return best.status();
      response->set_found(best->has_value());
      if (best->has_value()) *response->mutable_record() = ToProto(**best);
      return absl::OkStatus();
    });
  }

  grpc::Status Query(grpc::ServerContext* context, const v1::QueryRecordsRequest* request,
                     v1::QueryRecordsResponse* response) override {
    return HandleCall(env_, context, "Records.Query", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckQueryRecords(*request));
      absl::StatusOr<std::vector<Record>> records = store_.Query(ToFilter(*request));
      if (!records.ok()) return records.status();
      for (const Record& record : *records) *response->add_records() = ToProto(record);
      return absl::OkStatus();
    });
  }

  grpc::Status Export(grpc::ServerContext* context, const v1::ExportRecordsRequest* request,
                      grpc::ServerWriter<v1::RecordLines>* writer) override {
    return HandleCall(env_, context, "Records.Export", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckExportRecords(*request));
      RecordFilter filter;
      filter.workload_key = request->workload_key();
      filter.device_key = request->device_key();
            ChunkWriter chunks(*context, *writer);
      TF_RETURN_IF_ERROR(store_.Export(filter, [&](const std::string& line) { return chunks.Add(line); }));
      if (!chunks.Flush() || chunks.client_gone())
        return absl::CancelledError("the client stopped reading the export stream");
      return absl::OkStatus();
    });
  }

  grpc::Status ImportChunks(grpc::ServerContext* context, grpc::ServerReader<grpc::ByteBuffer>* reader,
                            v1::ImportRecordsResponse* response) {
    return HandleCall(env_, context, "Records.Import", [&]() -> absl::Status {
      ImportSession session(store_);
      grpc::ByteBuffer bytes;
      for (int index = 0; reader->Read(&bytes); ++index) {
        absl::StatusOr<v1::RecordLines> chunk = DecodeChunk(bytes, index);
        if (!chunk.ok()) return chunk.status();
        TF_RETURN_IF_ERROR(session.AddChunk(*chunk, index));
      }
      if (context->IsCancelled()) return absl::CancelledError("the client cancelled the import");
      absl::StatusOr<v1::ImportRecordsResponse> done = session.Finish();
      if (!done.ok()) return done.status();
      *response = *std::move(done);
      return absl::OkStatus();
    });
  }

 private:
  RecordStore& store_;
  const CallEnv env_;
};

}  // namespace

std::unique_ptr<v1::Records::Service> MakeRecordsService(const ServiceDeps& deps) {
  return std::make_unique<RecordsService>(deps);
}

}  // namespace tuneforge::server
