#include "server/record_store/row_codec.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace tuneforge::server {
namespace {

absl::Status Corrupt(const std::string& db_path, const std::string& what) {
  return absl::DataLossError(absl::StrCat("record store ", db_path, ": ", what,
                                          "; the file may be corrupt or edited by hand: restore it from a "
                                          "backup, or move it away and start a new database"));
}

}  // namespace

void BindRecord(sqlite::Statement& stmt, const v1::Record& record) {
  if (record.id() == 0) {
    stmt.BindNull(1);
  } else {
    stmt.Bind(1, static_cast<int64_t>(record.id()));
  }
  stmt.BindText(2, record.workload_key())
      .BindText(3, record.workload())
      .BindText(4, record.device_key())
      .BindText(5, record.job_id())
      .BindText(6, record.task_id())
      .BindText(7, record.schedule_json())
      .BindText(8, record.error_kind())
      .BindText(9, record.error())
      .Bind(10, record.median_seconds())
      .BindText(11, RepeatSecondsToJson({record.repeat_seconds().begin(), record.repeat_seconds().end()}))
      .Bind(12, record.gflops())
      .Bind(13, record.compile_ms())
      .BindText(14, record.worker_id())
      .Bind(15, static_cast<int64_t>(record.created_unix_ms()))
      .Bind(16, static_cast<int64_t>(record.schema_version()))
      .Bind(17, static_cast<int64_t>(std::max(record.timings(), 1)));
}

absl::StatusOr<v1::Record> ReadRecord(const sqlite::Statement& stmt, const std::string& db_path) {
  v1::Record record;
  record.set_id(stmt.Int(0));
  record.set_workload_key(stmt.Text(1));
  record.set_workload(stmt.Text(2));
  record.set_device_key(stmt.Text(3));
  record.set_job_id(stmt.Text(4));
  record.set_task_id(stmt.Text(5));
  record.set_schedule_json(stmt.Text(6));
  record.set_error_kind(stmt.Text(7));
  record.set_error(stmt.Text(8));
  record.set_median_seconds(stmt.Real(9));
  absl::StatusOr<std::vector<double>> repeats = RepeatSecondsFromJson(stmt.Text(10));
  if (!repeats.ok())
    return Corrupt(db_path, absl::StrCat("record ", record.id(), ": ", repeats.status().message()));
  record.mutable_repeat_seconds()->Assign(repeats->begin(), repeats->end());
  record.set_gflops(stmt.Real(11));
  record.set_compile_ms(stmt.Real(12));
  record.set_worker_id(stmt.Text(13));
  record.set_created_unix_ms(stmt.Int(14));
  record.set_schema_version(static_cast<int32_t>(stmt.Int(15)));
  record.set_timings(static_cast<int32_t>(stmt.Int(16)));
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

absl::Status ParseStored(const std::string& bytes, google::protobuf::MessageLite* message,
                         const std::string& db_path, const std::string& what) {
  if (!message->ParseFromString(bytes))
    return Corrupt(db_path, absl::StrCat(what, " holds an unreadable ", message->GetTypeName()));
  return absl::OkStatus();
}

absl::StatusOr<TaskRow> ReadTaskRow(const sqlite::Statement& stmt, const std::string& db_path) {
  TaskRow row;
  row.task_id = stmt.Text(0);
  row.job_id = stmt.Text(1);
  row.device_key = stmt.Text(2);
  row.workload_key = stmt.Text(3);
  if (absl::Status s = ParseStored(stmt.Blob(4), &row.task, db_path, absl::StrCat("task '", row.task_id, "'"));
      !s.ok())
    return s;
  return row;
}

}  // namespace tuneforge::server
