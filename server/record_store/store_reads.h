// The SQL of every read, run on a read connection (read_pool.h), never the
// writer's. Each read is one statement, or several inside one read
// transaction, so it sees one committed snapshot of the WAL.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/record_store/record_store.h"
#include "server/record_store/sqlite_connection.h"

namespace tuneforge::server {

// The best-record query: ?1 workload key, ?2 device key (per device), or
// ?1 alone (any device). Each is answered from one partial index
// (records_best / records_best_any); tests check the plan.
std::string BestSql(bool any_device);

absl::StatusOr<std::optional<Record>> ReadBest(sqlite::Connection& db, const std::string& workload_key,
                                                   const std::string& device_key);
absl::StatusOr<std::vector<Record>> ReadQuery(sqlite::Connection& db, const RecordFilter& filter);
absl::StatusOr<JobTotals> ReadTotals(sqlite::Connection& db, const std::string& job_id);
absl::StatusOr<std::vector<TaskRow>> ReadPendingTasks(sqlite::Connection& db, const std::string& job_id);
absl::StatusOr<std::vector<std::string>> ReadMeasuredSchedules(sqlite::Connection& db,
                                                               const std::string& workload_key,
                                                               const std::string& device_key);
absl::StatusOr<std::vector<Job>> ReadJobs(sqlite::Connection& db);
absl::StatusOr<std::optional<WorkloadRow>> ReadWorkload(sqlite::Connection& db, const std::string& workload_key);
absl::StatusOr<std::vector<DeviceRow>> ReadDevices(sqlite::Connection& db);
absl::StatusOr<int64_t> ReadRecordCount(sqlite::Connection& db);

// Every record matching the filter's keys and only_ok, oldest first (by id),
// as JSON lines; stops when `line` returns false.
absl::Status ExportRecords(sqlite::Connection& db, const RecordFilter& filter,
                           const std::function<bool(const std::string& line)>& line);

}  // namespace tuneforge::server
