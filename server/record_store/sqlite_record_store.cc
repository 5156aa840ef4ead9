// RecordStore on SQLite: one write connection owned by the writer thread
// (write_queue.h), read-only connections for readers (read_pool.h), the SQL
// in store_writes.cc / store_reads.cc / cost_model_rows.cc, the schema in
// schema.cc.
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/record_store/cost_model_rows.h"
#include "server/record_store/read_pool.h"
#include "server/record_store/record_validation.h"
#include "server/record_store/record_store.h"
#include "server/record_store/schema.h"
#include "server/record_store/sqlite_connection.h"
#include "server/record_store/store_reads.h"
#include "server/record_store/store_writes.h"
#include "server/record_store/write_queue.h"

namespace tuneforge::server {
namespace {

using sqlite::Connection;

// The database file survives a crash of this process (kill -9) for every
// committed transaction: COMMIT returns after SQLite has written the
// transaction's pages to the WAL file with write(2), so they are in the
// kernel's page cache, which outlives the process and reaches the disk
// later. In WAL mode, synchronous=NORMAL fsyncs only at checkpoints (WAL
// before the copy into the database, the database after it), not at each
// commit; so an OS crash or power loss can roll back the last commits
// since the previous checkpoint, but never corrupt the database (the WAL's
// frame checksums cut it at the last complete transaction).
// fsync_every_commit selects synchronous=FULL: one WAL fsync per commit,
// and then committed data survives power loss too.
absl::Status ConfigureWriter(Connection& db, const RecordStoreOptions& options) {
  std::string pragmas = absl::StrCat("PRAGMA synchronous = ", options.fsync_every_commit ? "FULL" : "NORMAL",
                                     "; PRAGMA foreign_keys = ON",
                                     // Index inserts land at random keys: a page cache that
                                     // holds the upper index levels saves most reads.
                                     "; PRAGMA cache_size = -65536",  // KiB: 64 MiB
                                     // Truncate the WAL back to 64 MiB after a checkpoint
                                     // (a big import can grow it far beyond).
                                     "; PRAGMA journal_size_limit = ", int64_t{64} << 20);
  if (options.max_database_bytes > 0) {
    absl::StatusOr<int64_t> page_size = db.QueryInt("PRAGMA page_size");
    if (!page_size.ok()) return page_size.status();
    absl::StrAppend(&pragmas, "; PRAGMA max_page_count = ",
                    std::max<int64_t>(1, options.max_database_bytes / *page_size));
  }
  return db.Exec(pragmas);
}

// Input errors name the database too.
absl::Status InStore(const std::string& path, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("record store ", path, ": ", status.message()));
}

class SqliteRecordStore final : public RecordStore {
 public:
  SqliteRecordStore(std::string path, std::unique_ptr<Connection> writer, const RecordStoreOptions& options)
      : path_(std::move(path)),
        readers_(path_, options.busy_timeout_ms, options.max_idle_readers),
        writer_(std::move(writer)) {}

  // Opens one reader now, so that a store that opens can also be read.
  absl::Status CheckReadable() { return readers_.Acquire().status(); }

  absl::StatusOr<AddOutcome> AddRecords(std::vector<Record> records) override {
    if (absl::Status s = CheckAndCompleteRecords(records, "records"); !s.ok()) return InStore(path_, s);
    return Insert(AsNewRecords(std::move(records)));
  }

  absl::StatusOr<AddOutcome> AddResults(std::vector<MeasuredResult> results) override {
    std::vector<Record> records;
    records.reserve(results.size());
    for (MeasuredResult& r : results) records.push_back(std::move(r.record));
    if (absl::Status s = CheckAndCompleteRecords(records, "records"); !s.ok()) return InStore(path_, s);
    for (size_t i = 0; i < results.size(); ++i) results[i].record = std::move(records[i]);
    return Insert(results);
  }

  absl::Status SaveJob(const Job& job) override {
    if (absl::Status s = CheckJob(job); !s.ok()) return InStore(path_, s);
    const int64_t now = NowUnixMs();
    return writer_.Run([&](Connection& db) { return UpsertJob(db, job, now); });
  }

  absl::Status AddTasks(std::vector<TaskRow> tasks) override {
    if (absl::Status s = CheckAndCompleteTasks(tasks); !s.ok()) return InStore(path_, s);
    if (tasks.empty()) return absl::OkStatus();
    const int64_t now = NowUnixMs();
    return writer_.Run([&](Connection& db) { return InsertTasks(db, tasks, now); });
  }

  absl::Status SaveWorkload(const std::string& workload_key, const WorkloadSource& workload,
                            double flops) override {
    if (absl::Status s = CheckWorkload(workload_key, flops); !s.ok()) return InStore(path_, s);
    const int64_t now = NowUnixMs();
    return writer_.Run([&](Connection& db) { return UpsertWorkload(db, workload_key, workload, flops, now); });
  }

  absl::Status SaveDevice(const DeviceInfo& device) override {
    if (absl::Status s = CheckDevice(device); !s.ok()) return InStore(path_, s);
    const int64_t now = NowUnixMs();
    return writer_.Run([&](Connection& db) { return UpsertDevice(db, device, now); });
  }

  absl::Status SaveCostModel(const std::string& device_key, const std::string& kind, const std::string& bytes,
                             int64_t trained_on_records) override {
    if (absl::Status s = CheckCostModel(device_key, kind, bytes, trained_on_records); !s.ok())
      return InStore(path_, s);
    const int64_t now = NowUnixMs();
    return writer_.Run(
        [&](Connection& db) { return UpsertCostModel(db, device_key, kind, bytes, trained_on_records, now); });
  }

  absl::Status SaveLearnedSearchState(const std::string& device_key, const std::string& bytes) override {
    if (absl::Status s = CheckLearnedSearchState(device_key, bytes); !s.ok()) return InStore(path_, s);
    const int64_t now = NowUnixMs();
    return writer_.Run([&](Connection& db) { return UpsertLearnedSearchState(db, device_key, bytes, now); });
  }

  absl::StatusOr<std::optional<Record>> Best(const std::string& workload_key,
                                                 const std::string& device_key) override {
    if (workload_key.empty())
      return InStore(path_, absl::InvalidArgumentError("best: the workload key is empty"));
    return WithReader([&](Connection& db) { return ReadBest(db, workload_key, device_key); });
  }

  absl::StatusOr<std::vector<Record>> Query(const RecordFilter& filter) override {
    return WithReader([&](Connection& db) { return ReadQuery(db, filter); });
  }

  absl::StatusOr<std::vector<Job>> LoadJobs() override {
    return WithReader([&](Connection& db) { return ReadJobs(db); });
  }

  absl::StatusOr<JobTotals> Totals(const std::string& job_id) override {
    return WithReader([&](Connection& db) { return ReadTotals(db, job_id); });
  }

  absl::StatusOr<std::vector<TaskRow>> PendingTasks(const std::string& job_id) override {
    return WithReader([&](Connection& db) { return ReadPendingTasks(db, job_id); });
  }

  absl::StatusOr<std::vector<std::string>> MeasuredSchedules(const std::string& workload_key,
                                                             const std::string& device_key) override {
    return WithReader([&](Connection& db) { return ReadMeasuredSchedules(db, workload_key, device_key); });
  }

  absl::StatusOr<int64_t> CountRecords() override {
    return WithReader([&](Connection& db) { return ReadRecordCount(db); });
  }

  absl::StatusOr<std::optional<WorkloadRow>> LoadWorkload(const std::string& workload_key) override {
    return WithReader([&](Connection& db) { return ReadWorkload(db, workload_key); });
  }

  absl::StatusOr<std::vector<DeviceRow>> LoadDevices() override {
    return WithReader([&](Connection& db) { return ReadDevices(db); });
  }

  absl::StatusOr<std::optional<StoredCostModel>> LoadCostModel(const std::string& device_key) override {
    return WithReader([&](Connection& db) { return ReadCostModel(db, device_key); });
  }

  absl::StatusOr<std::optional<std::string>> LoadLearnedSearchState(const std::string& device_key) override {
    return WithReader([&](Connection& db) { return ReadLearnedSearchState(db, device_key); });
  }

  absl::StatusOr<std::vector<TrainingRecord>> TrainingRecords(const std::string& device_key, int limit) override {
    return WithReader([&](Connection& db) { return ReadTrainingRecords(db, device_key, limit); });
  }

  absl::Status Export(const RecordFilter& filter,
                      const std::function<bool(const std::string& line)>& line) override {
    return WithReader([&](Connection& db) { return ExportRecords(db, filter, line); });
  }

  absl::StatusOr<AddOutcome> Import(const std::vector<std::string>& lines) override {
    std::vector<Record> records;
    records.reserve(lines.size());
    // The definitions the lines carry, stored once per workload so that an
    // export from here carries them on. A text is parsed once per label, not
    // once per record (an import holds many records of few workloads).
    std::map<std::string, WorkloadRow> definitions;
    std::set<std::string> checked;  // label + text of the definitions already parsed
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].find_first_not_of(" \t\r\n") == std::string::npos) continue;
      absl::StatusOr<Record> record = RecordFromJsonLine(lines[i]);
      absl::Status status = record.status();
      if (status.ok() && !record->definition.empty() &&
          !checked.contains(absl::StrCat(record->workload, "\n", record->definition))) {
        absl::StatusOr<te::Workload> defined = DefinitionOf(*record);
        status = defined.status();
        if (defined.ok()) {
          checked.insert(absl::StrCat(record->workload, "\n", record->definition));
          definitions.try_emplace(record->workload_key,
                                  WorkloadRow{record->workload_key,
                                              WorkloadSource::Definition(record->definition, defined->op),
                                              defined->dag->flops()});
        }
      }
      if (!status.ok())
        return InStore(path_, absl::InvalidArgumentError(absl::StrCat("import: line ", i + 1, ": ", status.message(),
                                                                      "; nothing of this import was stored")));
      record->id = 0;  // ids are this store's own
      records.push_back(*std::move(record));
    }
    if (absl::Status s = CheckAndCompleteRecords(records, "import: records"); !s.ok()) return InStore(path_, s);
    return Insert(AsNewRecords(std::move(records)), definitions);
  }

  WriteStats GetWriteStats() const override {
    const WriteQueue::Stats stats = writer_.stats();
    return WriteStats{stats.transactions, stats.writes};
  }

  const std::string& path() const override { return path_; }

 private:
  // One write call: all of `records` or none (its savepoint).
  static std::vector<MeasuredResult> AsNewRecords(std::vector<Record> records) {
    std::vector<MeasuredResult> results;
    results.reserve(records.size());
    for (Record& r : records) results.push_back({std::move(r), ""});
    return results;
  }

  // The results and the workloads they bring, in one transaction.
  absl::StatusOr<AddOutcome> Insert(const std::vector<MeasuredResult>& results,
                                    const std::map<std::string, WorkloadRow>& workloads = {}) {
    AddOutcome outcome;
    if (results.empty()) return outcome;
    const int64_t now = NowUnixMs();
    absl::Status status = writer_.Run([&](Connection& db) {
      for (const auto& [key, w] : workloads)
        if (absl::Status s = UpsertWorkload(db, key, w.workload, w.flops, now); !s.ok()) return s;
      return InsertRecords(db, results, &outcome);
    });
    if (!status.ok()) return status;
    return outcome;
  }

  template <class Read>
  auto WithReader(const Read& read) -> decltype(read(std::declval<Connection&>())) {
    absl::StatusOr<ReadPool::Lease> lease = readers_.Acquire();
    if (!lease.ok()) return lease.status();
    return read(**lease);
  }

  const std::string path_;
  ReadPool readers_;
  WriteQueue writer_;  // last: destroyed first, finishing queued writes while readers exist
};

}  // namespace

absl::StatusOr<std::unique_ptr<RecordStore>> RecordStore::Open(const std::string& path,
                                                               const RecordStoreOptions& options) {
  if (path.empty())
    return absl::InvalidArgumentError("record store: the database path is empty; pass a file name (--db FILE)");
  if (path == ":memory:" || path.rfind("file:", 0) == 0)
    return absl::InvalidArgumentError(absl::StrCat("record store ", path,
                                                   ": needs a plain file path (WAL and several connections "
                                                   "need a file); pass a file name (--db FILE)"));
  absl::StatusOr<std::unique_ptr<Connection>> writer =
      Connection::Open(path, Connection::Mode::kReadWrite, options.busy_timeout_ms);
  if (!writer.ok()) return writer.status();
  if (absl::Status s = ConfigureWriter(**writer, options); !s.ok()) return s;
  if (absl::Status s = PrepareSchema(**writer); !s.ok()) return s;
  auto store = std::make_unique<SqliteRecordStore>(path, *std::move(writer), options);
  if (absl::Status s = store->CheckReadable(); !s.ok()) return s;
  return store;
}

}  // namespace tuneforge::server
