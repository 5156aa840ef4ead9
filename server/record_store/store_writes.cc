#include "server/record_store/store_writes.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "server/record_store/record_validation.h"
#include "server/marshal/to_proto.h"
#include "server/record_store/row_codec.h"

namespace tuneforge::server {
namespace {

absl::Status Invalid(const std::string& what) { return absl::InvalidArgumentError(what); }

// A caller-chosen id must not be another task's record's id.
absl::StatusOr<bool> IdHeldByOtherTask(sqlite::Connection& db, const Record& record) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare("SELECT task_id FROM records WHERE id = ?1");
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, record.id);
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  return *row && stmt->Text(0) != record.task_id;
}

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// A re-timing result: the record of task `retime_of` gets the new
// session's repeats (median over every session), or the error of a kernel
// that failed when run again; the re-timing task stops being pending. A
// re-timing of a final comparison (`compared_at_unix_ms` set) keeps only
// that comparison's sessions: earlier ones, from other moments of the
// machine, are dropped. A re-timing is applied once: without its pending
// task row it is a duplicate. Returns the updated record's id, 0 when
// nothing changed, -1 for a duplicate.
absl::StatusOr<int64_t> ApplyRetime(sqlite::Connection& db, const MeasuredResult& result) {
  const Record& retime = result.record;
  const std::string& retime_of = result.retime_of;
  absl::StatusOr<sqlite::Statement> pending = db.Prepare("DELETE FROM tasks WHERE task_id = ?1");
  if (!pending.ok()) return pending.status();
  pending->BindText(1, retime.task_id);
  if (absl::Status s = pending->Run(); !s.ok()) return s;
  if (db.Changes() == 0) return -1;

  absl::StatusOr<sqlite::Statement> read = db.Prepare(
      "SELECT id, median_seconds, repeat_seconds, gflops, timings, compared_at_unix_ms FROM records "
      "WHERE task_id = ?1 AND error_kind = 'none'");
  if (!read.ok()) return read.status();
  read->BindText(1, retime_of);
  absl::StatusOr<bool> found = read->Step();
  if (!found.ok()) return found.status();
  if (!*found) return 0;  // gone, or already failed: nothing to confirm
  const int64_t id = read->Int(0);
  const double old_median = read->Real(1);
  absl::StatusOr<std::vector<double>> repeats = RepeatSecondsFromJson(read->Text(2));
  if (!repeats.ok()) return repeats.status();
  const double old_gflops = read->Real(3);
  const int64_t timings = read->Int(4) + 1;
  const int64_t compared_at = result.compared_at_unix_ms;
  // A comparison's first session replaces what other moments measured.
  const bool fresh_comparison = compared_at != 0 && read->Int(5) != compared_at;

  // A worker that died says nothing about the kernel.
  if (retime.error_kind == measure::MeasureErrorKind::kWorkerLost) return 0;
  absl::StatusOr<sqlite::Statement> update = [&]() -> absl::StatusOr<sqlite::Statement> {
    if (!retime.ok()) {
      // It measured fine once and fails now (wrong result, crash, timeout):
      // not a kernel to hand out.
      absl::StatusOr<sqlite::Statement> stmt =
          db.Prepare("UPDATE records SET error_kind = ?2, error = ?3, timings = ?4 WHERE id = ?1");
      if (!stmt.ok()) return stmt.status();
      stmt->Bind(1, id).BindText(2, measure::ErrorKindName(retime.error_kind))
          .BindText(3, absl::StrCat("re-timing failed: ", retime.error))
          .Bind(4, timings);
      return stmt;
    }
    if (fresh_comparison) repeats->clear();
    else if (repeats->empty()) repeats->push_back(old_median);
    if (retime.repeat_seconds.empty()) {
      repeats->push_back(retime.median_seconds);
    } else {
      repeats->insert(repeats->end(), retime.repeat_seconds.begin(), retime.repeat_seconds.end());
    }
    const double median = MedianOf(*repeats);
    absl::StatusOr<sqlite::Statement> stmt = db.Prepare(
        "UPDATE records SET median_seconds = ?2, repeat_seconds = ?3, gflops = ?4, timings = ?5, "
        "compared_at_unix_ms = CASE WHEN ?6 = 0 THEN compared_at_unix_ms ELSE ?6 END WHERE id = ?1");
    if (!stmt.ok()) return stmt.status();
    stmt->Bind(1, id).Bind(2, median).BindText(3, RepeatSecondsToJson(*repeats))
        .Bind(4, median > 0 ? old_gflops * old_median / median : 0.0)
        .Bind(5, timings)
        .Bind(6, compared_at);
    return stmt;
  }();
  if (!update.ok()) return update.status();
  if (absl::Status s = update->Run(); !s.ok()) return s;
  return id;
}

}  // namespace

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

absl::Status CheckAndCompleteRecords(std::vector<Record>& records, const char* what) {
  const int64_t now = NowUnixMs();
  for (size_t i = 0; i < records.size(); ++i) {
    Record& record = records[i];
    if (absl::Status s = ValidateRecord(record); !s.ok())
      return Invalid(absl::StrCat(what, "[", i, "] (task '", record.task_id, "'): ", s.message()));
    if (record.created_unix_ms == 0) record.created_unix_ms = now;
    if (record.schema_version == 0) record.schema_version = kRecordSchemaVersion;
  }
  return absl::OkStatus();
}

absl::Status CheckJob(const Job& job) {
  if (job.id.empty()) return Invalid("job: field 'id' is empty; a stored job needs its id");
  return absl::OkStatus();
}

absl::Status CheckAndCompleteTasks(std::vector<TaskRow>& tasks) {
  for (size_t i = 0; i < tasks.size(); ++i) {
    TaskRow& row = tasks[i];
    const std::string where = absl::StrCat("tasks[", i, "]: ");
    if (row.task_id.empty()) return Invalid(where + "field 'task_id' is empty");
    if (row.job_id.empty()) return Invalid(where + "field 'job_id' is empty");
    if (row.device_key.empty()) return Invalid(where + "field 'device_key' is empty");
    if (row.workload_key.empty()) return Invalid(where + "field 'workload_key' is empty");
    if (!row.task.task_id.empty() && row.task.task_id != row.task_id)
      return Invalid(absl::StrCat(where, "field 'task.task_id' is '", row.task.task_id,
                                  "' but the row's task_id is '", row.task_id, "'; they must be equal"));
    row.task.task_id = row.task_id;
    // Objects are large and rebuilt at lease time; a stored task is the recipe.
    row.task.candidate.reset();
    row.task.reference.reset();
  }
  return absl::OkStatus();
}

absl::Status CheckWorkload(const std::string& workload_key, double flops) {
  if (workload_key.empty()) return Invalid("workload: the workload key is empty");
  if (!std::isfinite(flops) || flops < 0)
    return Invalid(absl::StrCat("workload '", workload_key, "': flops must be a finite number >= 0; got ", flops));
  return absl::OkStatus();
}

absl::Status CheckDevice(const DeviceInfo& device) {
  if (device.device_key.empty()) return Invalid("device: field 'device_key' is empty");
  return absl::OkStatus();
}

absl::Status InsertRecords(sqlite::Connection& db, const std::vector<MeasuredResult>& results,
                           AddOutcome* outcome) {
  *outcome = AddOutcome{};
  outcome->ids.reserve(results.size());
  const std::string sql = absl::StrCat("INSERT INTO records (", kRecordColumns,
                                       ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                                       "?15, ?16, ?17, ?18) ON CONFLICT (task_id) DO NOTHING");
  for (size_t i = 0; i < results.size(); ++i) {
    const Record& record = results[i].record;
    if (results[i].is_retime()) {
      absl::StatusOr<int64_t> updated = ApplyRetime(db, results[i]);
      if (!updated.ok()) return updated.status();
      ++(*updated >= 0 ? outcome->updated : outcome->duplicate);
      outcome->ids.push_back(std::max<int64_t>(*updated, 0));
      continue;
    }
    if (record.id != 0) {
      absl::StatusOr<bool> taken = IdHeldByOtherTask(db, record);
      if (!taken.ok()) return taken.status();
      if (*taken)
        return absl::AlreadyExistsError(absl::StrCat(
            "record store ", db.path(), ": records[", i, "] (task '", record.task_id, "'): id ", record.id,
            " is the id of another task's record; leave id 0 and the store picks one"));
    }
    absl::StatusOr<sqlite::Statement> stmt = db.Prepare(sql);
    if (!stmt.ok()) return stmt.status();
    BindRecord(*stmt, record);
    if (absl::Status s = stmt->Run(); !s.ok()) return s;
    if (db.Changes() == 1) {
      ++outcome->accepted;
      outcome->ids.push_back(db.LastInsertRowId());
    } else {
      ++outcome->duplicate;
      outcome->ids.push_back(0);
    }
  }
  return absl::OkStatus();
}

absl::Status UpsertJob(sqlite::Connection& db, const Job& job, int64_t now_ms) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare(
      "INSERT INTO jobs (id, state, spec, job, created_unix_ms, updated_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
      "ON CONFLICT (id) DO UPDATE SET state = excluded.state, spec = excluded.spec, job = excluded.job, "
      "updated_unix_ms = excluded.updated_unix_ms");
  if (!stmt.ok()) return stmt.status();
  // The state column holds the API's enum value (v1::JobState), as before.
  stmt->BindText(1, job.id)
      .Bind(2, static_cast<int64_t>(ToProto(job.state)))
      .BindBlob(3, SpecBytes(job.spec))
      .BindBlob(4, JobBytes(job))
      .Bind(5, job.created_unix_ms != 0 ? job.created_unix_ms : now_ms)
      .Bind(6, job.updated_unix_ms != 0 ? job.updated_unix_ms : now_ms);
  return stmt->Run();
}

absl::Status InsertTasks(sqlite::Connection& db, const std::vector<TaskRow>& tasks, int64_t now_ms) {
  // The foreign key would refuse a task of an unknown job; saying which job
  // and why is kinder than a constraint error.
  std::set<std::string> jobs_seen;
  for (const TaskRow& row : tasks) {
    if (!jobs_seen.insert(row.job_id).second) continue;
    absl::StatusOr<sqlite::Statement> stmt = db.Prepare("SELECT 1 FROM jobs WHERE id = ?1");
    if (!stmt.ok()) return stmt.status();
    stmt->BindText(1, row.job_id);
    absl::StatusOr<bool> found = stmt->Step();
    if (!found.ok()) return found.status();
    if (!*found)
      return absl::FailedPreconditionError(
          absl::StrCat("record store ", db.path(), ": task '", row.task_id, "' belongs to job '", row.job_id,
                       "', which is not stored; save the job (SaveJob) before its tasks"));
  }
  for (const TaskRow& row : tasks) {
    absl::StatusOr<sqlite::Statement> stmt = db.Prepare(
        "INSERT INTO tasks (task_id, job_id, device_key, workload_key, task, created_unix_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (task_id) DO NOTHING");
    if (!stmt.ok()) return stmt.status();
    stmt->BindText(1, row.task_id)
        .BindText(2, row.job_id)
        .BindText(3, row.device_key)
        .BindText(4, row.workload_key)
        .BindBlob(5, TaskBytes(row.task))
        .Bind(6, now_ms);
    if (absl::Status s = stmt->Run(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status UpsertWorkload(sqlite::Connection& db, const std::string& workload_key,
                            const WorkloadSource& workload, double flops, int64_t now_ms) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare(
      "INSERT INTO workloads (workload_key, workload, flops, created_unix_ms) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT (workload_key) DO UPDATE SET workload = excluded.workload, flops = excluded.flops");
  if (!stmt.ok()) return stmt.status();
  stmt->BindText(1, workload_key).BindBlob(2, WorkloadBytes(workload)).Bind(3, flops).Bind(4, now_ms);
  return stmt->Run();
}

absl::Status UpsertDevice(sqlite::Connection& db, const DeviceInfo& device, int64_t now_ms) {
  absl::StatusOr<sqlite::Statement> stmt = db.Prepare(
      "INSERT INTO devices (device_key, device, last_seen_unix_ms) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (device_key) DO UPDATE SET device = excluded.device, "
      "last_seen_unix_ms = excluded.last_seen_unix_ms");
  if (!stmt.ok()) return stmt.status();
  stmt->BindText(1, device.device_key).BindBlob(2, DeviceBytes(device)).Bind(3, now_ms);
  return stmt->Run();
}

}  // namespace tuneforge::server
