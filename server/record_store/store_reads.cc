#include "server/record_store/store_reads.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/record_store/row_codec.h"

namespace tuneforge::server {
namespace {

// WHERE clause and its text arguments (?1, ?2, ... in order).
struct Where {
  std::string sql;
  std::vector<std::string> args;
};

Where FilterWhere(const RecordFilter& filter) {
  Where where;
  std::vector<std::string> terms;
  auto equal = [&](const char* column, const std::string& value) {
    if (value.empty()) return;
    where.args.push_back(value);
    terms.push_back(absl::StrCat(column, " = ?", where.args.size()));
  };
  equal("workload_key", filter.workload_key);
  equal("device_key", filter.device_key);
  equal("job_id", filter.job_id);
  // Written exactly as in the partial indexes' WHERE, so they apply.
  if (filter.only_ok) terms.push_back("error_kind = 'none'");
  if (!terms.empty()) where.sql = absl::StrCat(" WHERE ", absl::StrJoin(terms, " AND "));
  return where;
}

absl::StatusOr<sqlite::Statement> PrepareWith(sqlite::Connection& db, const std::string& sql,
                                              const std::vector<std::string>& args) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  for (size_t i = 0; i < args.size(); ++i) stmt->BindText(static_cast<int>(i) + 1, args[i]);
  return stmt;
}

// Runs a record query to the end.
absl::StatusOr<std::vector<Record>> CollectRecords(sqlite::Connection& db, sqlite::Statement& stmt) {
  std::vector<Record> records;
  for (;;) {
    absl::StatusOr<bool> row = stmt.Step();
    if (!row.ok()) return row.status();
    if (!*row) return records;
    absl::StatusOr<Record> record = ReadRecord(stmt, db.path());
    if (!record.ok()) return record.status();
    records.push_back(*std::move(record));
  }
}

absl::StatusOr<std::optional<Record>> FirstRecord(sqlite::Connection& db, const std::string& sql,
                                                      const std::vector<std::string>& args) {
  absl::StatusOr<sqlite::Statement> stmt = PrepareWith(db, sql, args);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<Record>();
  absl::StatusOr<Record> record = ReadRecord(*stmt, db.path());
  if (!record.ok()) return record.status();
  return std::optional<Record>(*std::move(record));
}

// A record its job offers as a best (records AS r): every correct one of a
// job that ran no final comparison of the workload; of one that did, those
// its latest comparison timed. The others' medians come from other moments
// of the machine, and those that look faster than the compared leaders
// mostly had lucky sessions: picked from a thousand by noisy times, the
// fastest-looking are the luckiest (server/core/retiming.h).
constexpr char kOfferedByItsJob[] =
    "r.compared_at_unix_ms = (SELECT COALESCE(MAX(c.compared_at_unix_ms), 0) FROM records AS c "
    "WHERE c.job_id = r.job_id AND c.workload_key = r.workload_key)";

}  // namespace

std::string BestSql(bool any_device) {
  // The index ends in median_seconds (and the rowid), so ORDER BY reads
  // the entries in order: no scan, no sort; each entry's job is one
  // lookup in records_compared.
  return absl::StrCat("SELECT ", kRecordColumns, " FROM records AS r WHERE workload_key = ?1",
                      any_device ? "" : " AND device_key = ?2", " AND error_kind = 'none' AND ", kOfferedByItsJob,
                      " ORDER BY median_seconds, id LIMIT 1");
}

absl::StatusOr<std::optional<Record>> ReadBest(sqlite::Connection& db, const std::string& workload_key,
                                                   const std::string& device_key) {
  if (device_key.empty()) return FirstRecord(db, BestSql(true), {workload_key});
  return FirstRecord(db, BestSql(false), {workload_key, device_key});
}

absl::StatusOr<std::vector<Record>> ReadQuery(sqlite::Connection& db, const RecordFilter& filter) {
  const Where where = FilterWhere(filter);
  const char* order = " ORDER BY id DESC";
  if (filter.fastest_first) {
    order = filter.only_ok ? " ORDER BY median_seconds, id"
                           : " ORDER BY error_kind != 'none', median_seconds, id";
  }
  const int limit_param = static_cast<int>(where.args.size()) + 1;
  std::string sql = absl::StrCat("SELECT ", kRecordColumns, " FROM records", where.sql, order);
  if (filter.limit > 0) absl::StrAppend(&sql, " LIMIT ?", limit_param);
  absl::StatusOr<sqlite::Statement> stmt = PrepareWith(db, sql, where.args);
  if (!stmt.ok()) return stmt.status();
  if (filter.limit > 0) stmt->Bind(limit_param, static_cast<int64_t>(filter.limit));
  return CollectRecords(db, *stmt);
}

absl::StatusOr<JobTotals> ReadTotals(sqlite::Connection& db, const std::string& job_id) {
  // Counts and best from the same snapshot.
  absl::StatusOr<sqlite::ReadTransaction> transaction = sqlite::ReadTransaction::Begin(db);
  if (!transaction.ok()) return transaction.status();
  JobTotals totals;
  {
    absl::StatusOr<sqlite::Statement> stmt = PrepareWith(
        db, "SELECT COUNT(*), COALESCE(SUM(error_kind != 'none'), 0) FROM records WHERE job_id = ?1", {job_id});
    if (!stmt.ok()) return stmt.status();
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    totals.trials = stmt->Int(0);
    totals.errors = stmt->Int(1);
  }
  {
    absl::StatusOr<sqlite::Statement> stmt = PrepareWith(
        db,
        absl::StrCat("SELECT workload_key, COUNT(*), COALESCE(MIN(CASE WHEN error_kind = 'none' AND ",
                     kOfferedByItsJob, " THEN median_seconds END), 0) "
                     "FROM records AS r WHERE job_id = ?1 GROUP BY workload_key"),
        {job_id});
    if (!stmt.ok()) return stmt.status();
    for (;;) {
      absl::StatusOr<bool> row = stmt->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      totals.by_workload[stmt->Text(0)] = WorkloadTotals{stmt->Int(1), stmt->Real(2)};
    }
  }
  absl::StatusOr<std::optional<Record>> best = FirstRecord(
      db,
      absl::StrCat("SELECT ", kRecordColumns,
                   " FROM records AS r WHERE job_id = ?1 AND error_kind = 'none' AND ", kOfferedByItsJob,
                   " ORDER BY median_seconds, id LIMIT 1"),
      {job_id});
  if (!best.ok()) return best.status();
  totals.best = *std::move(best);
  if (absl::Status s = transaction->Commit(); !s.ok()) return s;
  return totals;
}

absl::StatusOr<std::vector<TaskRow>> ReadPendingTasks(sqlite::Connection& db, const std::string& job_id) {
  absl::StatusOr<sqlite::Statement> stmt = PrepareWith(
      db,
      "SELECT task_id, job_id, device_key, workload_key, task FROM tasks AS t WHERE t.job_id = ?1 "
      "AND NOT EXISTS (SELECT 1 FROM records AS r WHERE r.task_id = t.task_id) ORDER BY t.rowid",
      {job_id});
  if (!stmt.ok()) return stmt.status();
  std::vector<TaskRow> tasks;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return tasks;
    absl::StatusOr<TaskRow> task = ReadTaskRow(*stmt, db.path());
    if (!task.ok()) return task.status();
    tasks.push_back(*std::move(task));
  }
}

absl::StatusOr<std::vector<std::string>> ReadMeasuredSchedules(sqlite::Connection& db,
                                                               const std::string& workload_key,
                                                               const std::string& device_key) {
  absl::StatusOr<sqlite::Statement> stmt = PrepareWith(
      db, "SELECT schedule_json FROM records WHERE workload_key = ?1 AND device_key = ?2 ORDER BY id",
      {workload_key, device_key});
  if (!stmt.ok()) return stmt.status();
  std::vector<std::string> schedules;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return schedules;
    schedules.push_back(stmt->Text(0));
  }
}

absl::StatusOr<std::vector<Job>> ReadJobs(sqlite::Connection& db) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare("SELECT id, job FROM jobs ORDER BY created_unix_ms, id");
  if (!stmt.ok()) return stmt.status();
  std::vector<Job> jobs;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return jobs;
    absl::StatusOr<Job> job = ReadJobBytes(stmt->Blob(1), db.path(), absl::StrCat("job '", stmt->Text(0), "'"));
    if (!job.ok()) return job.status();
    jobs.push_back(*std::move(job));
  }
}

absl::StatusOr<std::optional<WorkloadRow>> ReadWorkload(sqlite::Connection& db, const std::string& workload_key) {
  absl::StatusOr<sqlite::Statement> stmt =
      PrepareWith(db, "SELECT workload, flops FROM workloads WHERE workload_key = ?1", {workload_key});
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<WorkloadRow>();
  WorkloadRow workload;
  workload.workload_key = workload_key;
  workload.flops = stmt->Real(1);
  absl::StatusOr<WorkloadSource> source =
      ReadWorkloadBytes(stmt->Blob(0), db.path(), absl::StrCat("workload '", workload_key, "'"));
  if (!source.ok()) return source.status();
  workload.workload = *std::move(source);
  return std::optional<WorkloadRow>(std::move(workload));
}

absl::StatusOr<std::vector<DeviceRow>> ReadDevices(sqlite::Connection& db) {
  absl::StatusOr<sqlite::Statement> stmt =
      db.Prepare("SELECT device_key, device, last_seen_unix_ms FROM devices ORDER BY device_key");
  if (!stmt.ok()) return stmt.status();
  std::vector<DeviceRow> devices;
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return devices;
    DeviceRow device;
    device.last_seen_unix_ms = stmt->Int(2);
    absl::StatusOr<DeviceInfo> info =
        ReadDeviceBytes(stmt->Blob(1), db.path(), absl::StrCat("device '", stmt->Text(0), "'"));
    if (!info.ok()) return info.status();
    device.device = *std::move(info);
    devices.push_back(std::move(device));
  }
}

absl::StatusOr<int64_t> ReadRecordCount(sqlite::Connection& db) {
  return db.QueryInt("SELECT COUNT(*) FROM records");
}

absl::Status ExportRecords(sqlite::Connection& db, const RecordFilter& filter,
                           const std::function<bool(const std::string& line)>& line) {
  // One statement: one snapshot, however long the export takes. A record of
  // a compute definition takes the definition's text along from the
  // workloads table (the last column; NULL for every other record).
  const Where where = FilterWhere(filter);
  absl::StatusOr<sqlite::Statement> stmt = PrepareWith(
      db,
      absl::StrCat("SELECT ", kRecordColumns,
                   ", (SELECT w.workload FROM workloads AS w WHERE w.workload_key = records.workload_key "
                   "AND records.workload LIKE 'def:%') FROM records",
                   where.sql, " ORDER BY id"),
      where.args);
  if (!stmt.ok()) return stmt.status();
  for (;;) {
    absl::StatusOr<bool> row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
    absl::StatusOr<Record> record = ReadRecord(*stmt, db.path());
    if (!record.ok()) return record.status();
    if (const std::string stored = stmt->Blob(kRecordColumnCount); !stored.empty()) {
      absl::StatusOr<WorkloadSource> source =
          ReadWorkloadBytes(stored, db.path(), absl::StrCat("workload '", record->workload_key, "'"));
      if (!source.ok()) return source.status();
      if (source->is_definition()) record->definition = source->text;
    }
    if (!line(RecordToJsonLine(*record))) return absl::OkStatus();
  }
}

}  // namespace tuneforge::server
