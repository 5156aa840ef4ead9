// The record store: SQLite (WAL) holding workloads, devices, jobs, pending
// measure tasks, every measure record, and the search's cost model per
// device (so a restarted server, or a new job on the same device, starts
// with a trained model). Small interface, in the manner of
// MetaSchedule's database: commit a job / tasks / records, read the best,
// query, export and import.
//
// Writes go through one writer thread that groups everything queued into
// one transaction; each write call returns once its transaction committed,
// so a caller that got OK knows the data survives a crash (kill -9). Reads
// run on any thread against WAL snapshots. The schema is versioned and
// migrated on open; a database from a newer tuneforge is refused.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/domain/device.h"
#include "server/domain/job.h"
#include "server/domain/record.h"
#include "server/domain/task.h"

namespace tuneforge::server {

struct RecordStoreOptions {
  // A write that finds the database locked by another process waits this
  // long before failing with UNAVAILABLE.
  int busy_timeout_ms = 5000;
  // false: synchronous=NORMAL (a committed write survives kill -9 of the
  // process; an OS crash or power loss may roll back the last commits).
  // true: synchronous=FULL (the WAL is fsynced at every commit: it survives
  // power loss too, at the cost of one fsync per group commit).
  bool fsync_every_commit = false;
  // Largest database file allowed; writes past it fail with
  // RESOURCE_EXHAUSTED like a full disk. 0: no limit.
  int64_t max_database_bytes = 0;
  // Read connections kept open for reuse (one is opened per concurrent reader).
  int max_idle_readers = 8;
};

struct RecordFilter {
  std::string workload_key;  // "" = any
  std::string device_key;
  std::string job_id;
  bool only_ok = false;       // correct records only (error kind none)
  int limit = 100;            // <= 0: no limit (the RPC edge caps it)
  // Else newest first: the most recently stored first (an imported record
  // counts as stored when it was imported). Fastest first puts error
  // records after every correct one.
  bool fastest_first = false;
};

struct WorkloadRow {
  std::string workload_key;
  WorkloadSource workload;
  double flops = 0;
};

struct DeviceRow {
  DeviceInfo device;
  int64_t last_seen_unix_ms = 0;  // when it was last saved
};

// Per job and workload: what the job's records of the workload add up to.
struct WorkloadTotals {
  int64_t trials = 0;       // records
  double best_seconds = 0;  // fastest correct the job offers (Best); 0: none
};

// Per job: what its records add up to.
struct JobTotals {
  int64_t trials = 0;   // records of the job
  int64_t errors = 0;   // of which not correct
  std::map<std::string, WorkloadTotals> by_workload;  // by workload key
  std::optional<Record> best;  // fastest correct one the job offers (Best)
};

// A worker's result on its way to the store: a new record, or a re-timing
// of a stored one. A re-timing carries the task id of the record whose
// program it timed again; its own record (with the re-timing task's id)
// is never stored, it updates that one.
struct MeasuredResult {
  Record record;
  std::string retime_of;  // "" for a new record
  double run_wall_ms = 0;  // the worker's run phase (not stored; the job's measure cost)
  // A re-timing of a final comparison (MeasureTask::compared_at_unix_ms):
  // the record keeps only this comparison's repeats.
  int64_t compared_at_unix_ms = 0;

  bool is_retime() const { return !retime_of.empty(); }
};

struct AddOutcome {
  int accepted = 0;   // new records stored
  int updated = 0;    // re-timings applied to a stored record
  int duplicate = 0;  // a record with the same task_id was stored before
  // Per input record, in order: the id it was stored under, or 0 for a
  // duplicate (so a caller passes on only what is new). For a re-timing:
  // the id of the record it updated, 0 when it changed none.
  std::vector<int64_t> ids;
};

// A cost model saved for a device: what CostModel::kind() and Serialize()
// gave (the bytes carry their own feature schema version, checked when
// they are loaded). One per device key; saving again replaces it.
struct StoredCostModel {
  std::string device_key;
  std::string kind;                // "xgboost", "random"
  std::string bytes;               // CostModel::Serialize()
  int64_t trained_on_records = 0;  // records of the device it was trained on (the saver's count)
  int64_t updated_unix_ms = 0;     // when it was saved (set by the store)
};

// A record as cost model training data (no repeat times, worker or job):
// enough to rebuild the program and its label.
struct TrainingRecord {
  int64_t id = 0;
  std::string workload_key;
  std::string workload;       // spec text, or "def:<name>" (as the record keeps it)
  std::string schedule_json;
  measure::MeasureErrorKind error_kind = measure::MeasureErrorKind::kNone;
  double median_seconds = 0;
  int64_t created_unix_ms = 0;
};

// What the writer thread has done since the store opened: writes per
// transaction is the group-commit factor.
struct WriteStats {
  int64_t transactions = 0;  // committed
  int64_t writes = 0;        // write calls committed
};

class RecordStore {
 public:
  // Creates the file and schema if needed, migrates older schemas. Errors:
  // unreadable file, not a tuneforge database, a newer schema version.
  static absl::StatusOr<std::unique_ptr<RecordStore>> Open(const std::string& path,
                                                          const RecordStoreOptions& options = {});
  virtual ~RecordStore() = default;

  // ---- Writes (grouped by the writer thread; return after commit) ----------
  // Stores records (id and created time are set by the store unless given;
  // schema_version 0 means the current one); a record whose task_id is
  // already stored counts as a duplicate and is not stored again. The
  // records' tasks stop being pending. Every record is checked first
  // (non-empty task id, workload and device keys, error kind; finite,
  // non-negative numbers; a correct record has a time and a schedule):
  // INVALID_ARGUMENT "records[3]: field 'task_id' ...", and nothing of the
  // call is stored. A given id that another task's record holds is
  // ALREADY_EXISTS. Other writes grouped into the same transaction are not
  // affected by this call failing.
  virtual absl::StatusOr<AddOutcome> AddRecords(std::vector<Record> records) = 0;
  // Workers' results, checked and stored as AddRecords does, in one
  // transaction. A re-timing is not a new record: the correct record of task
  // `retime_of` gets the new repeats (its median and GFLOPS become those
  // over every session, timings + 1), or, when the kernel now fails (other
  // than worker_lost), that error; it counts as `updated`. A re-timing of a
  // final comparison (compared_at_unix_ms set) replaces the repeats of
  // other sessions instead: the record's median becomes that comparison's
  // alone (the sessions of one comparison are merged), and the record is
  // stamped with it. Its task (the
  // re-timing task) must be pending: applying it ends the task, and a
  // second report of it is a duplicate.
  virtual absl::StatusOr<AddOutcome> AddResults(std::vector<MeasuredResult> results) = 0;
  virtual absl::Status SaveJob(const Job& job) = 0;  // insert or replace by id
  // Built kernels (candidate, reference) are not stored: a restarted server
  // builds them again. Adding a task id that is already stored does nothing.
  virtual absl::Status AddTasks(std::vector<TaskRow> tasks) = 0;
  virtual absl::Status SaveWorkload(const std::string& workload_key, const WorkloadSource& workload,
                                    double flops) = 0;
  virtual absl::Status SaveDevice(const DeviceInfo& device) = 0;
  // Inserts or replaces the device's cost model. INVALID_ARGUMENT for an
  // empty device key, kind or bytes, or a negative record count.
  virtual absl::Status SaveCostModel(const std::string& device_key, const std::string& kind,
                                     const std::string& bytes, int64_t trained_on_records) = 0;
  // Inserts or replaces what the device's learned search options learned
  // (search::LearnedSearchState's bytes). INVALID_ARGUMENT for an empty
  // device key or bytes.
  virtual absl::Status SaveLearnedSearchState(const std::string& device_key, const std::string& bytes) = 0;

  // ---- Reads ------------------------------------------------------------------
  // The fastest correct record for the workload on the device ("" = any
  // device) among those their jobs offer: of a job that ran a final
  // comparison of the workload, only the records its latest comparison
  // timed (server/core/retiming.h). One indexed query.
  virtual absl::StatusOr<std::optional<Record>> Best(const std::string& workload_key,
                                                         const std::string& device_key) = 0;
  virtual absl::StatusOr<std::vector<Record>> Query(const RecordFilter& filter) = 0;
  virtual absl::StatusOr<std::vector<Job>> LoadJobs() = 0;
  virtual absl::StatusOr<JobTotals> Totals(const std::string& job_id) = 0;
  // Tasks of the job that have no record yet.
  virtual absl::StatusOr<std::vector<TaskRow>> PendingTasks(const std::string& job_id) = 0;
  // Schedule JSON texts of every record of the workload on the device (what
  // a search must not measure again).
  virtual absl::StatusOr<std::vector<std::string>> MeasuredSchedules(const std::string& workload_key,
                                                                     const std::string& device_key) = 0;
  virtual absl::StatusOr<int64_t> CountRecords() = 0;
  virtual absl::StatusOr<std::optional<WorkloadRow>> LoadWorkload(const std::string& workload_key) = 0;
  virtual absl::StatusOr<std::vector<DeviceRow>> LoadDevices() = 0;  // by device key
  // The device's saved cost model; nullopt when none was saved.
  virtual absl::StatusOr<std::optional<StoredCostModel>> LoadCostModel(const std::string& device_key) = 0;
  // The device's saved learned search state; nullopt when none was saved.
  virtual absl::StatusOr<std::optional<std::string>> LoadLearnedSearchState(const std::string& device_key) = 0;
  // Records of the device, correct and failed ones, newest first (by id),
  // at most `limit` (<= 0: all): what a search retrains its cost model on
  // when it starts. One indexed query (records_by_device).
  virtual absl::StatusOr<std::vector<TrainingRecord>> TrainingRecords(const std::string& device_key,
                                                                      int limit) = 0;

  // ---- Export / import as JSON lines (one record per line) --------------------
  // Calls `line` for each matching record, oldest first (by id), from one
  // snapshot; stops early when it returns false. Every matching record:
  // filter.limit and filter.fastest_first are not used.
  virtual absl::Status Export(const RecordFilter& filter,
                              const std::function<bool(const std::string& line)>& line) = 0;
  // Parses and stores lines (blank ones are skipped); errors name the line
  // number (1-based) and field, and then nothing of the batch is stored.
  // Ids belong to a store: imported records get new ids here; the task id
  // identifies a record across stores (duplicates are counted).
  virtual absl::StatusOr<AddOutcome> Import(const std::vector<std::string>& lines) = 0;

  virtual WriteStats GetWriteStats() const = 0;
  virtual const std::string& path() const = 0;
};

// One record as a JSON line and back (the export format; also what
// `tuneforge export` writes). Parsing checks every field and the schema
// version.
std::string RecordToJsonLine(const Record& record);
absl::StatusOr<Record> RecordFromJsonLine(const std::string& line);

}  // namespace tuneforge::server
