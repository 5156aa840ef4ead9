// The schema: versions, migrations, files that are not ours, and the plans
// of the queries that must use an index.
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/record_store/cost_model_rows.h"
#include "server/record_store/schema.h"
#include "server/record_store/store_reads.h"
#include "tests/server/record_store/store_test_util.h"

namespace tuneforge::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::RawDb;
using testing::TempDir;

// Schema version 1 as tuneforge wrote it, frozen here (not taken from
// schema.cc) so the test sees what an old file really holds.
const char* kVersion1Schema = R"(
  CREATE TABLE workloads (workload_key TEXT PRIMARY KEY, workload BLOB NOT NULL, flops REAL NOT NULL,
                          created_unix_ms INTEGER NOT NULL);
  CREATE TABLE devices (device_key TEXT PRIMARY KEY, device BLOB NOT NULL, last_seen_unix_ms INTEGER NOT NULL);
  CREATE TABLE jobs (id TEXT PRIMARY KEY, state INTEGER NOT NULL, spec BLOB NOT NULL, job BLOB NOT NULL,
                     created_unix_ms INTEGER NOT NULL, updated_unix_ms INTEGER NOT NULL);
  CREATE TABLE tasks (task_id TEXT PRIMARY KEY, job_id TEXT NOT NULL REFERENCES jobs(id),
                      device_key TEXT NOT NULL, workload_key TEXT NOT NULL, task BLOB NOT NULL,
                      created_unix_ms INTEGER NOT NULL);
  CREATE INDEX tasks_by_job ON tasks(job_id);
  CREATE TABLE records (id INTEGER PRIMARY KEY, task_id TEXT NOT NULL UNIQUE, job_id TEXT NOT NULL,
                        workload_key TEXT NOT NULL, workload TEXT NOT NULL, device_key TEXT NOT NULL,
                        worker_id TEXT NOT NULL, schedule_json TEXT NOT NULL, error_kind TEXT NOT NULL,
                        error TEXT NOT NULL, median_seconds REAL NOT NULL, repeat_seconds TEXT NOT NULL,
                        gflops REAL NOT NULL, compile_ms REAL NOT NULL, created_unix_ms INTEGER NOT NULL,
                        schema_version INTEGER NOT NULL);
  CREATE INDEX records_by_job ON records(job_id, error_kind);
  CREATE INDEX records_by_workload_device ON records(workload_key, device_key);
  CREATE INDEX records_best ON records(workload_key, device_key, median_seconds) WHERE error_kind = 'none';
  INSERT INTO records VALUES (7, 't-old', 'job-old', 'wk-a', 'matmul:K=64,M=64,N=64', 'dev-1', 'w-1',
                              '{"workload":"matmul:K=64,M=64,N=64","steps":[]}', 'none', '', 0.002,
                              '[0.002,0.0021]', 262.1, 11.0, 1700000000000, 1);
  PRAGMA application_id = 1413899362;
  PRAGMA user_version = 1;
)";

TEST(SchemaTest, NewFileGetsCurrentSchemaInWalMode) {
  TempDir dir;
  const std::string path = dir.File("new.db");
  ASSERT_NE(OpenOrFail(path), nullptr);
  RawDb raw(path);
  EXPECT_EQ(raw.Int("PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(raw.Int("PRAGMA application_id"), kTuneforgeApplicationId);
  EXPECT_EQ(raw.Column("PRAGMA journal_mode"), std::vector<std::string>{"wal"});
  std::vector<std::string> indexes = raw.Column("SELECT name FROM sqlite_schema WHERE type = 'index' ORDER BY name");
  EXPECT_THAT(indexes, ::testing::IsSupersetOf({"records_best", "records_best_any", "records_best_job",
                                                "records_by_job", "records_by_workload_device", "records_by_device",
                                                "tasks_by_job"}));
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'cost_models'"), 1);
}

TEST(SchemaTest, MigratesAVersion1File) {
  TempDir dir;
  const std::string path = dir.File("old.db");
  {
    RawDb raw(path);
    raw.Exec(kVersion1Schema);
  }
  auto store = OpenOrFail(path);
  ASSERT_NE(store, nullptr);
  {
    RawDb raw(path);
    EXPECT_EQ(raw.Int("PRAGMA user_version"), kSchemaVersion);
    EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'records_best_any'"), 1);
    EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'records_best_job'"), 1);
  }
  // The old record reads back, through the index the migration added.
  auto best = store->Best("wk-a", "");
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_TRUE(best->has_value());
  EXPECT_EQ((*best)->id, 7);
  EXPECT_EQ((*best)->task_id, "t-old");
  EXPECT_EQ((*best)->repeat_seconds.size(), 2u);
  EXPECT_EQ((*best)->timings, 1);  // records from before re-timing were timed once
  EXPECT_EQ(store->Totals("job-old")->best->task_id, "t-old");
  // And the migrated store takes new records.
  ASSERT_TRUE(store->AddRecords({MakeRecord("t-new", "wk-a", "dev-2", 0.001)}).ok());
  EXPECT_EQ((*store->Best("wk-a", ""))->task_id, "t-new");
}

// Version 2 added two indexes to version 1.
const char* kVersion2Additions = R"(
  CREATE INDEX records_best_any ON records(workload_key, median_seconds) WHERE error_kind = 'none';
  CREATE INDEX records_best_job ON records(job_id, median_seconds) WHERE error_kind = 'none';
  PRAGMA user_version = 2;
)";

TEST(SchemaTest, MigratesAVersion2FileToCostModels) {
  TempDir dir;
  const std::string path = dir.File("v2.db");
  {
    RawDb raw(path);
    raw.Exec(kVersion1Schema);
    raw.Exec(kVersion2Additions);
  }
  auto store = OpenOrFail(path);
  ASSERT_NE(store, nullptr);
  {
    RawDb raw(path);
    EXPECT_EQ(raw.Int("PRAGMA user_version"), kSchemaVersion);
    EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'cost_models'"), 1);
    EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'records_by_device'"), 1);
  }
  // No model yet; the old record is training data; a model can be saved.
  auto model = store->LoadCostModel("dev-1");
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_FALSE(model->has_value());
  auto training = store->TrainingRecords("dev-1", 0);
  ASSERT_TRUE(training.ok()) << training.status();
  ASSERT_EQ(training->size(), 1u);
  EXPECT_EQ((*training)[0].id, 7);
  EXPECT_EQ((*training)[0].workload, "matmul:K=64,M=64,N=64");
  ASSERT_TRUE(store->SaveCostModel("dev-1", "xgboost", "tfcm model bytes", 1).ok());
  EXPECT_EQ((*store->LoadCostModel("dev-1"))->bytes, "tfcm model bytes");
}

TEST(SchemaTest, AFailedMigrationChangesNothing) {
  TempDir dir;
  const std::string path = dir.File("old.db");
  {
    RawDb raw(path);
    raw.Exec(kVersion1Schema);
    // A hand-made object in the way of migration 2.
    raw.Exec("CREATE TABLE records_best_job (x INTEGER)");
  }
  auto store = RecordStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(),
              HasSubstr(absl::StrCat("migrating the schema from version 1 to ", kSchemaVersion)));
  EXPECT_THAT(store.status().message(), HasSubstr("best over any device and per job"));
  EXPECT_THAT(store.status().message(), HasSubstr(path));
  RawDb raw(path);
  EXPECT_EQ(raw.Int("PRAGMA user_version"), 1);
  // The migration's first step (records_best_any) was rolled back too.
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'records_best_any'"), 0);
}

TEST(SchemaTest, RefusesANewerSchema) {
  TempDir dir;
  const std::string path = dir.File("future.db");
  ASSERT_NE(OpenOrFail(path), nullptr);
  {
    RawDb raw(path);
    raw.Exec(absl::StrCat("PRAGMA user_version = ", kSchemaVersion + 5));
  }
  auto store = RecordStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr(path));
  EXPECT_THAT(store.status().message(), HasSubstr(absl::StrCat("schema version ", kSchemaVersion + 5)));
  EXPECT_THAT(store.status().message(), HasSubstr(absl::StrCat("this tuneforge's version ", kSchemaVersion)));
  EXPECT_THAT(store.status().message(), HasSubstr("Upgrade tuneforge"));
}

TEST(SchemaTest, RefusesAFileThatIsNotADatabase) {
  TempDir dir;
  const std::string path = dir.File("notes.txt");
  std::ofstream(path) << "These are my notes, not a database. They are long enough to fill a header.\n"
                      << std::string(5000, 'x');
  auto store = RecordStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr(path));
  EXPECT_THAT(store.status().message(), HasSubstr("not an SQLite database"));
  EXPECT_THAT(store.status().message(), HasSubstr("point --db at"));
}

TEST(SchemaTest, RefusesAnotherProgramsDatabase) {
  TempDir dir;
  const std::string path = dir.File("other.db");
  {
    RawDb raw(path);
    raw.Exec("CREATE TABLE customers (name TEXT); CREATE TABLE orders (id INTEGER)");
  }
  auto store = RecordStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr("not a tuneforge database"));
  EXPECT_THAT(store.status().message(), HasSubstr("customers, orders"));
  RawDb raw(path);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'records'"), 0);  // untouched

  const std::string marked = dir.File("marked.db");
  {
    RawDb other(marked);
    other.Exec("PRAGMA application_id = 42");
  }
  auto refused = RecordStore::Open(marked);
  EXPECT_THAT(refused.status().message(), HasSubstr("belongs to another program (application_id 0x0000002a)"));
}

TEST(SchemaTest, ReportsACorruptFile) {
  TempDir dir;
  const std::string path = dir.File("corrupt.db");
  {
    auto store = OpenOrFail(path);
    ASSERT_NE(store, nullptr);
    std::vector<Record> records;
    for (int i = 0; i < 200; ++i) records.push_back(MakeRecord(absl::StrCat("t-", i), "wk-a", "dev-1", 0.001 + i));
    ASSERT_TRUE(store->AddRecords(records).ok());
  }
  {
    RawDb raw(path);  // fold the WAL into the file, so the damage below is what is read
    raw.Exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  {
    // Overwrite everything after the first page (the header and schema
    // stay readable, the tables do not).
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(0, std::ios::end);
    const std::streamoff size = file.tellp();
    ASSERT_GT(size, 8192);
    file.seekp(4096);
    const std::string garbage(static_cast<size_t>(size) - 4096, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  absl::Status status;
  auto store = RecordStore::Open(path);
  if (!store.ok()) {
    status = store.status();
  } else {
    status = (*store)->CountRecords().status();
  }
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(), HasSubstr("corrupt"));
}

TEST(SchemaTest, RefusesPathsThatAreNotFiles) {
  EXPECT_THAT(RecordStore::Open("").status().message(), HasSubstr("database path is empty"));
  EXPECT_THAT(RecordStore::Open(":memory:").status().message(), HasSubstr("needs a plain file path"));
  auto missing_dir = RecordStore::Open("/nonexistent-dir-for-tuneforge/x.db");
  ASSERT_FALSE(missing_dir.ok());
  EXPECT_THAT(missing_dir.status().message(), HasSubstr("/nonexistent-dir-for-tuneforge/x.db"));
  EXPECT_THAT(missing_dir.status().message(), HasSubstr("cannot be opened"));
}

// The plan of `sql` on the store's file, one detail line per step.
std::vector<std::string> Plan(const std::string& path, const std::string& sql) {
  RawDb raw(path);
  return raw.Column("EXPLAIN QUERY PLAN " + sql, 3);
}

TEST(SchemaTest, TrainingRecordsIsOneIndexSearchWithoutSort) {
  TempDir dir;
  const std::string path = dir.File("plan.db");
  {
    auto store = OpenOrFail(path);
    ASSERT_NE(store, nullptr);
    std::vector<Record> records;
    for (int i = 0; i < 300; ++i)
      records.push_back(MakeRecord(absl::StrCat("t-", i), absl::StrCat("wk-", i % 7), absl::StrCat("dev-", i % 3),
                                   0.001 * (1 + i % 11)));
    ASSERT_TRUE(store->AddRecords(records).ok());
  }
  const std::vector<std::string> plan = Plan(path, TrainingRecordsSql());
  ASSERT_EQ(plan.size(), 1u) << absl::StrJoin(plan, "\n");
  EXPECT_THAT(plan[0], HasSubstr("SEARCH records USING INDEX records_by_device (device_key=?)"));
  EXPECT_THAT(plan[0], Not(HasSubstr("TEMP B-TREE")));
}

TEST(SchemaTest, BestIsOneIndexSearchWithoutSort) {
  TempDir dir;
  const std::string path = dir.File("plan.db");
  {
    auto store = OpenOrFail(path);
    ASSERT_NE(store, nullptr);
    std::vector<Record> records;
    for (int i = 0; i < 300; ++i)
      records.push_back(MakeRecord(absl::StrCat("t-", i), absl::StrCat("wk-", i % 7), absl::StrCat("dev-", i % 3),
                                   0.001 * (1 + i % 11), i % 5 == 0 ? "timeout" : "none"));
    ASSERT_TRUE(store->AddRecords(records).ok());
  }
  // Each entry in median order, then its job's latest comparison stamp
  // (one search of records_compared).
  const std::vector<std::string> per_device = Plan(path, BestSql(false));
  ASSERT_EQ(per_device.size(), 3u) << absl::StrJoin(per_device, "\n");
  EXPECT_THAT(per_device[0], HasSubstr("SEARCH r USING INDEX records_best (workload_key=? AND device_key=?)"));
  const std::vector<std::string> any_device = Plan(path, BestSql(true));
  ASSERT_EQ(any_device.size(), 3u) << absl::StrJoin(any_device, "\n");
  EXPECT_THAT(any_device[0], HasSubstr("SEARCH r USING INDEX records_best_any (workload_key=?)"));
  for (const std::vector<std::string>* plan : {&per_device, &any_device}) {
    EXPECT_THAT((*plan)[1], HasSubstr("CORRELATED SCALAR SUBQUERY"));
    EXPECT_THAT((*plan)[2], HasSubstr("SEARCH c USING COVERING INDEX records_compared (job_id=? AND workload_key=?)"));
    for (const std::string& line : *plan) {
      EXPECT_THAT(line, Not(HasSubstr("SCAN")));
      EXPECT_THAT(line, Not(HasSubstr("TEMP B-TREE")));
    }
  }
}

}  // namespace
}  // namespace tuneforge::server
