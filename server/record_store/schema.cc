#include "server/record_store/schema.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace tuneforge::server {
namespace {

// Version 1: the tables, and the per-device best index.
Migration TablesMigration() {
  return {1,
          "tables",
          {
              R"(CREATE TABLE workloads (
                   workload_key TEXT PRIMARY KEY,
                   workload BLOB NOT NULL,            -- v1.Workload
                   flops REAL NOT NULL,
                   created_unix_ms INTEGER NOT NULL))",
              R"(CREATE TABLE devices (
                   device_key TEXT PRIMARY KEY,
                   device BLOB NOT NULL,              -- v1.DeviceInfo
                   last_seen_unix_ms INTEGER NOT NULL))",
              R"(CREATE TABLE jobs (
                   id TEXT PRIMARY KEY,
                   state INTEGER NOT NULL,            -- v1.JobState
                   spec BLOB NOT NULL,                -- v1.JobSpec
                   job BLOB NOT NULL,                 -- v1.Job
                   created_unix_ms INTEGER NOT NULL,
                   updated_unix_ms INTEGER NOT NULL))",
              // A task outlives nothing of its job: it exists to be leased
              // again after a restart, which needs the job.
              R"(CREATE TABLE tasks (
                   task_id TEXT PRIMARY KEY,
                   job_id TEXT NOT NULL REFERENCES jobs(id),
                   device_key TEXT NOT NULL,
                   workload_key TEXT NOT NULL,
                   task BLOB NOT NULL,                -- v1.MeasureTask without built kernels
                   created_unix_ms INTEGER NOT NULL))",
              "CREATE INDEX tasks_by_job ON tasks(job_id)",
              // Records keep no foreign keys: imported ones come from jobs of
              // other stores, and records outlive their jobs.
              R"(CREATE TABLE records (
                   id INTEGER PRIMARY KEY,
                   task_id TEXT NOT NULL UNIQUE,
                   job_id TEXT NOT NULL,
                   workload_key TEXT NOT NULL,
                   workload TEXT NOT NULL,
                   device_key TEXT NOT NULL,
                   worker_id TEXT NOT NULL,
                   schedule_json TEXT NOT NULL,
                   error_kind TEXT NOT NULL,
                   error TEXT NOT NULL,
                   median_seconds REAL NOT NULL,
                   repeat_seconds TEXT NOT NULL,      -- JSON array of seconds
                   gflops REAL NOT NULL,
                   compile_ms REAL NOT NULL,
                   created_unix_ms INTEGER NOT NULL,
                   schema_version INTEGER NOT NULL))",
              "CREATE INDEX records_by_job ON records(job_id, error_kind)",
              "CREATE INDEX records_by_workload_device ON records(workload_key, device_key)",
              R"(CREATE INDEX records_best ON records(workload_key, device_key, median_seconds)
                   WHERE error_kind = 'none')",
          }};
}

// Version 2: the best over any device, and a job's best, as single index
// lookups too.
Migration BestIndexesMigration() {
  return {2,
          "best over any device and per job",
          {
              R"(CREATE INDEX records_best_any ON records(workload_key, median_seconds)
                   WHERE error_kind = 'none')",
              R"(CREATE INDEX records_best_job ON records(job_id, median_seconds)
                   WHERE error_kind = 'none')",
          }};
}

// Version 3: the search's cost model per device, and the device's records
// newest first (what the search retrains on when it starts) as one index
// search. The index ends in the rowid (the record id), so ORDER BY id DESC
// reads it backwards without a sort.
Migration CostModelsMigration() {
  return {3,
          "cost models per device",
          {
              R"(CREATE TABLE cost_models (
                   device_key TEXT PRIMARY KEY,
                   kind TEXT NOT NULL,                -- CostModel::kind()
                   bytes BLOB NOT NULL,               -- CostModel::Serialize()
                   trained_on_records INTEGER NOT NULL,
                   updated_unix_ms INTEGER NOT NULL))",
              "CREATE INDEX records_by_device ON records(device_key)",
          }};
}

// Version 4: re-timing. A record's median may come from several timing
// sessions (the search re-times its top candidates so noise cannot crown a
// winner); existing records were timed once.
Migration TimingsMigration() {
  return {4, "timing sessions per record", {"ALTER TABLE records ADD COLUMN timings INTEGER NOT NULL DEFAULT 1"}};
}

// Version 5: what the learned search options learned per device (the
// mutation predictor, the sketch bandits), saved beside its cost model.
Migration LearnedSearchStateMigration() {
  return {5,
          "learned search state per device",
          {R"(CREATE TABLE learned_search_states (
                device_key TEXT PRIMARY KEY,
                bytes BLOB NOT NULL,                 -- search::LearnedSearchState::Serialize()
                updated_unix_ms INTEGER NOT NULL))"}};
}

// Version 6: the final comparison of a job's leaders (server/core/
// retiming.h) stamps each record it timed; existing records were never
// compared. A job that compared a workload offers only the compared
// records as its best: the job's latest stamp per workload is one index
// search.
Migration ComparisonMigration() {
  return {6,
          "final comparison stamp per record",
          {"ALTER TABLE records ADD COLUMN compared_at_unix_ms INTEGER NOT NULL DEFAULT 0",
           "CREATE INDEX records_compared ON records(job_id, workload_key, compared_at_unix_ms)"}};
}

absl::Status Refuse(const sqlite::Connection& db, const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat("record store ", db.path(), ": ", why));
}

// The file must be empty, or a tuneforge database this build can read.
absl::Status CheckOwnership(sqlite::Connection& db, int64_t application_id, int64_t version) {
  if (application_id != kTuneforgeApplicationId) {
    absl::StatusOr<std::string> tables =
        db.QueryText("SELECT COALESCE(group_concat(name, ', '), '') FROM sqlite_schema WHERE type = 'table'");
    if (!tables.ok()) return tables.status();
    if (application_id != 0)
      return Refuse(db, absl::StrFormat("not a tuneforge database: it belongs to another program "
                                        "(application_id 0x%08x); point --db at a tuneforge database or a "
                                        "new file name",
                                        static_cast<uint32_t>(application_id)));
    if (!tables->empty())
      return Refuse(db, absl::StrCat("not a tuneforge database: it holds tables of another program (",
                                     *tables, "); point --db at a tuneforge database or a new file name"));
  }
  if (version > kSchemaVersion)
    return Refuse(db, absl::StrCat("the database has schema version ", version,
                                   ", newer than this tuneforge's version ", kSchemaVersion,
                                   ": it was written by a newer tuneforge. Upgrade tuneforge to open it, "
                                   "or point --db at another file"));
  if (version < 0) return Refuse(db, absl::StrCat("the database has an invalid schema version ", version));
  return absl::OkStatus();
}

absl::Status Migrate(sqlite::Connection& db, int64_t from_version) {
  for (const Migration& migration : Migrations()) {
    if (migration.to_version <= from_version) continue;
    for (const std::string& step : migration.steps) {
      if (absl::Status s = db.Exec(step); !s.ok())
        return absl::Status(s.code(), absl::StrCat("migrating the schema from version ", from_version,
                                                   " to ", kSchemaVersion, ", step '", migration.title,
                                                   "' (version ", migration.to_version, "): ", s.message()));
    }
  }
  return db.Exec(absl::StrCat("PRAGMA application_id = ", kTuneforgeApplicationId,
                              "; PRAGMA user_version = ", kSchemaVersion));
}

}  // namespace

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> kMigrations = {TablesMigration(), BestIndexesMigration(),
                                                     CostModelsMigration(), TimingsMigration(),
                                                     LearnedSearchStateMigration(), ComparisonMigration()};
  return kMigrations;
}

absl::Status PrepareSchema(sqlite::Connection& db) {
  // WAL is a property of the file (it stays set); it cannot change inside a
  // transaction, so it comes first.
  absl::StatusOr<std::string> mode = db.QueryText("PRAGMA journal_mode = WAL");
  if (!mode.ok()) return mode.status();
  if (*mode != "wal")
    return Refuse(db, absl::StrCat("cannot use write-ahead logging (journal mode stays '", *mode,
                                   "'); keep the database on a local file system"));

  // IMMEDIATE: two processes opening the same new file at once migrate it
  // one after the other, the second finding it done.
  if (absl::Status s = db.Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  absl::Status status = [&]() -> absl::Status {
    absl::StatusOr<int64_t> application_id = db.QueryInt("PRAGMA application_id");
    if (!application_id.ok()) return application_id.status();
    absl::StatusOr<int64_t> version = db.QueryInt("PRAGMA user_version");
    if (!version.ok()) return version.status();
    if (absl::Status s = CheckOwnership(db, *application_id, *version); !s.ok()) return s;
    if (*version == kSchemaVersion) return absl::OkStatus();
    return Migrate(db, *version);
  }();
  if (status.ok()) status = db.Exec("COMMIT");
  if (!status.ok() && db.InTransaction()) db.Exec("ROLLBACK").IgnoreError();
  return status;
}

}  // namespace tuneforge::server
