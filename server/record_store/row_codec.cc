#include "server/record_store/row_codec.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "server/marshal/from_proto.h"
#include "server/marshal/to_proto.h"

namespace tuneforge::server {
namespace {

absl::Status Corrupt(const std::string& db_path, const std::string& what) {
  return absl::DataLossError(absl::StrCat("record store ", db_path, ": ", what,
                                          "; the file may be corrupt or edited by hand: restore it from a "
                                          "backup, or move it away and start a new database"));
}

}  // namespace

void BindRecord(sqlite::Statement& stmt, const Record& record) {
  if (record.id == 0) {
    stmt.BindNull(1);
  } else {
    stmt.Bind(1, record.id);
  }
  stmt.BindText(2, record.workload_key)
      .BindText(3, record.workload)
      .BindText(4, record.device_key)
      .BindText(5, record.job_id)
      .BindText(6, record.task_id)
      .BindText(7, record.schedule_json)
      .BindText(8, measure::ErrorKindName(record.error_kind))
      .BindText(9, record.error)
      .Bind(10, record.median_seconds)
      .BindText(11, RepeatSecondsToJson(record.repeat_seconds))
      .Bind(12, record.gflops)
      .Bind(13, record.compile_ms)
      .BindText(14, record.worker_id)
      .Bind(15, record.created_unix_ms)
      .Bind(16, static_cast<int64_t>(record.schema_version))
      .Bind(17, static_cast<int64_t>(std::max(record.timings, 1)))
      .Bind(18, record.compared_at_unix_ms);
}

absl::StatusOr<Record> ReadRecord(const sqlite::Statement& stmt, const std::string& db_path) {
  Record record;
  record.id = stmt.Int(0);
  record.workload_key = stmt.Text(1);
  record.workload = stmt.Text(2);
  record.device_key = stmt.Text(3);
  record.job_id = stmt.Text(4);
  record.task_id = stmt.Text(5);
  record.schedule_json = stmt.Text(6);
  const std::string kind = stmt.Text(7);
  std::optional<measure::MeasureErrorKind> parsed_kind = measure::ParseErrorKind(kind);
  if (!parsed_kind)
    return Corrupt(db_path, absl::StrCat("record ", record.id, ": error kind '", kind, "' is not one of ",
                                         measure::ErrorKindNameList()));
  record.error_kind = *parsed_kind;
  record.error = stmt.Text(8);
  record.median_seconds = stmt.Real(9);
  absl::StatusOr<std::vector<double>> repeats = RepeatSecondsFromJson(stmt.Text(10));
  if (!repeats.ok())
    return Corrupt(db_path, absl::StrCat("record ", record.id, ": ", repeats.status().message()));
  record.repeat_seconds = *std::move(repeats);
  record.gflops = stmt.Real(11);
  record.compile_ms = stmt.Real(12);
  record.worker_id = stmt.Text(13);
  record.created_unix_ms = stmt.Int(14);
  record.schema_version = static_cast<int>(stmt.Int(15));
  record.timings = static_cast<int>(stmt.Int(16));
  record.compared_at_unix_ms = stmt.Int(17);
  return record;
}

std::string RepeatSecondsToJson(const std::vector<double>& seconds) {
  // nlohmann writes the shortest text that reads back as the same double.
  return nlohmann::json(seconds).dump();
}

absl::StatusOr<std::vector<double>> RepeatSecondsFromJson(const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_array())
    return absl::InvalidArgumentError(absl::StrCat("repeat_seconds is not a JSON array: '", text, "'"));
  std::vector<double> seconds;
  seconds.reserve(json.size());
  for (const nlohmann::json& value : json) {
    if (!value.is_number())
      return absl::InvalidArgumentError(absl::StrCat("repeat_seconds holds a non-number: '", text, "'"));
    seconds.push_back(value.get<double>());
  }
  return seconds;
}

namespace {

std::string Bytes(const google::protobuf::MessageLite& message) {
  std::string bytes;
  message.SerializeToString(&bytes);
  return bytes;
}

// Parses the stored bytes of `what` into the message `M`, or DATA_LOSS.
template <typename M>
absl::StatusOr<M> ParseStored(const std::string& bytes, const std::string& db_path, const std::string& what) {
  M message;
  if (!message.ParseFromString(bytes))
    return Corrupt(db_path, absl::StrCat(what, " holds an unreadable ", message.GetTypeName()));
  return message;
}

// The stored bytes of `what` as the message M, in the server's type.
template <typename M>
auto ReadStored(const std::string& bytes, const std::string& db_path, const std::string& what)
    -> absl::StatusOr<decltype(FromProto(std::declval<const M&>()))> {
  absl::StatusOr<M> message = ParseStored<M>(bytes, db_path, what);
  if (!message.ok()) return message.status();
  return FromProto(*message);
}

}  // namespace

std::string JobBytes(const Job& job) { return Bytes(ToProto(job)); }

std::string SpecBytes(const JobSpec& spec) { return Bytes(ToProto(spec)); }

absl::StatusOr<Job> ReadJobBytes(const std::string& bytes, const std::string& db_path, const std::string& what) {
  return ReadStored<v1::Job>(bytes, db_path, what);
}

std::string TaskBytes(const MeasureTask& task) { return Bytes(ToProto(task)); }

std::string WorkloadBytes(const WorkloadSource& workload) { return Bytes(ToProto(workload)); }

absl::StatusOr<WorkloadSource> ReadWorkloadBytes(const std::string& bytes, const std::string& db_path,
                                                 const std::string& what) {
  return ReadStored<v1::Workload>(bytes, db_path, what);
}

std::string DeviceBytes(const DeviceInfo& device) { return Bytes(ToProto(device)); }

absl::StatusOr<DeviceInfo> ReadDeviceBytes(const std::string& bytes, const std::string& db_path,
                                           const std::string& what) {
  return ReadStored<v1::DeviceInfo>(bytes, db_path, what);
}

absl::StatusOr<TaskRow> ReadTaskRow(const sqlite::Statement& stmt, const std::string& db_path) {
  TaskRow row;
  row.task_id = stmt.Text(0);
  row.job_id = stmt.Text(1);
  row.device_key = stmt.Text(2);
  row.workload_key = stmt.Text(3);
  const std::string what = absl::StrCat("task '", row.task_id, "'");
  absl::StatusOr<v1::MeasureTask> proto = ParseStored<v1::MeasureTask>(stmt.Blob(4), db_path, what);
  if (!proto.ok()) return proto.status();
  absl::StatusOr<MeasureTask> task = FromProto(*proto);
  if (!task.ok()) return Corrupt(db_path, absl::StrCat(what, ": ", task.status().message()));
  row.task = *std::move(task);
  return row;
}

}  // namespace tuneforge::server
