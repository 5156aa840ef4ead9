// The SQL of every write, run by the writer thread on the write connection
// inside a batch's transaction (write_queue.h). Inputs are checked by the
// caller before they are queued (Check* below), so that a bad input costs
// no writer time and its error names the input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/record_store/record_store.h"
#include "server/record_store/sqlite_connection.h"

namespace tuneforge::server {

int64_t NowUnixMs();

// Validates every record ("records[2]: field ...") and fills the store's
// defaults: created_unix_ms (now) and schema_version (current).
absl::Status CheckAndCompleteRecords(std::vector<Record>& records, const char* what);
absl::Status CheckJob(const Job& job);
// Also strips built kernels and sets each task's task_id from its row.
absl::Status CheckAndCompleteTasks(std::vector<TaskRow>& tasks);
absl::Status CheckWorkload(const std::string& workload_key, double flops);
absl::Status CheckDevice(const DeviceInfo& device);

// Inserts the results' records; a task_id already stored (before, or
// earlier in `results`) counts as a duplicate. A re-timing is not inserted:
// it re-times the stored record of its retime_of task (see
// RecordStore::AddResults). Resets *outcome first.
absl::Status InsertRecords(sqlite::Connection& db, const std::vector<MeasuredResult>& results,
                           AddOutcome* outcome);
absl::Status UpsertJob(sqlite::Connection& db, const Job& job, int64_t now_ms);
absl::Status InsertTasks(sqlite::Connection& db, const std::vector<TaskRow>& tasks, int64_t now_ms);
absl::Status UpsertWorkload(sqlite::Connection& db, const std::string& workload_key,
                            const WorkloadSource& workload, double flops, int64_t now_ms);
absl::Status UpsertDevice(sqlite::Connection& db, const DeviceInfo& device, int64_t now_ms);

}  // namespace tuneforge::server
