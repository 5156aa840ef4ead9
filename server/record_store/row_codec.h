// Conversion between table rows and the server's types: records (one
// column per field), jobs, tasks, workloads and devices (the API message's
// bytes, converted by server/marshal/, plus the columns that are queried).
// Decoding checks what it reads: a row that does not parse is DATA_LOSS
// naming the file and the row.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/record_store/record_store.h"
#include "server/record_store/sqlite_connection.h"

namespace tuneforge::server {

// The record columns, in the order BindRecord binds (?1..?18) and
// ReadRecord reads (0..17).
inline constexpr const char* kRecordColumns =
    "id, workload_key, workload, device_key, job_id, task_id, schedule_json, error_kind, error, "
    "median_seconds, repeat_seconds, gflops, compile_ms, worker_id, created_unix_ms, schema_version, "
    "timings, compared_at_unix_ms";
inline constexpr int kRecordColumnCount = 18;

// Binds every field; id 0 binds NULL (the store picks the id).
void BindRecord(sqlite::Statement& stmt, const Record& record);
absl::StatusOr<Record> ReadRecord(const sqlite::Statement& stmt, const std::string& db_path);

// repeat_seconds as a JSON array ("[0.00125,0.00126]") and back.
std::string RepeatSecondsToJson(const std::vector<double>& seconds);
absl::StatusOr<std::vector<double>> RepeatSecondsFromJson(const std::string& text);

// The stored bytes of a job, task, workload or device, and back. Reading
// names the row (`what`: "job 'j-1'") when the bytes do not parse: DATA_LOSS.
std::string JobBytes(const Job& job);
std::string SpecBytes(const JobSpec& spec);  // the jobs table's spec column
absl::StatusOr<Job> ReadJobBytes(const std::string& bytes, const std::string& db_path, const std::string& what);
// Built kernels go along when the task has them: CheckAndCompleteTasks
// (store_writes.h) drops them before a task is stored.
std::string TaskBytes(const MeasureTask& task);
std::string WorkloadBytes(const WorkloadSource& workload);
absl::StatusOr<WorkloadSource> ReadWorkloadBytes(const std::string& bytes, const std::string& db_path,
                                                 const std::string& what);
std::string DeviceBytes(const DeviceInfo& device);
absl::StatusOr<DeviceInfo> ReadDeviceBytes(const std::string& bytes, const std::string& db_path,
                                           const std::string& what);

// Columns: task_id, job_id, device_key, workload_key, task (bytes).
absl::StatusOr<TaskRow> ReadTaskRow(const sqlite::Statement& stmt, const std::string& db_path);

}  // namespace tuneforge::server
