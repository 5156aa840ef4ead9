#include "tests/server/record_store/store_test_util.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tuneforge::server::testing {

TempDir::TempDir() {
  std::string pattern = ::testing::TempDir() + "/record_store_test.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

RawDb::RawDb(const std::string& path) {
  EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK) << path;
}

RawDb::~RawDb() { sqlite3_close(db_); }

void RawDb::Exec(const std::string& sql) {
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error != nullptr ? error : "") << "\n" << sql;
  sqlite3_free(error);
}

std::vector<std::string> RawDb::Column(const std::string& sql, int column) {
  std::vector<std::string> values;
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db_);
  while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(stmt, column);
    values.push_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
  }
  sqlite3_finalize(stmt);
  return values;
}

int64_t RawDb::Int(const std::string& sql) {
  std::vector<std::string> values = Column(sql);
  return values.empty() ? -1 : std::stoll(values[0]);
}

std::string ScheduleText(int variant) {
  return absl::StrCat(
      R"({"version":1,"workload":"matmul:K=64,M=64,N=64","steps":[{"kind":"split","stage":2,"iter":0,)",
      R"("lengths":[)", 1 + variant % 16, R"(],"inner_to_outer":true}]})");
}

Record MakeRecord(const std::string& task_id, const std::string& workload_key, const std::string& device_key,
                  double median_seconds, const std::string& error_kind, const std::string& job_id) {
  Record record;
  record.task_id = task_id;
  record.workload_key = workload_key;
  record.workload = "matmul:K=64,M=64,N=64";
  record.device_key = device_key;
  record.job_id = job_id;
  record.schedule_json = ScheduleText();
  std::optional<measure::MeasureErrorKind> kind = measure::ParseErrorKind(error_kind);
  EXPECT_TRUE(kind.has_value()) << "no error kind '" << error_kind << "'";
  record.error_kind = kind.value_or(measure::MeasureErrorKind::kRunnerError);
  if (error_kind != "none") record.error = absl::StrCat("it failed: ", error_kind);
  record.median_seconds = median_seconds;
  record.repeat_seconds.push_back(median_seconds);
  record.repeat_seconds.push_back(median_seconds * 1.01);
  record.repeat_seconds.push_back(median_seconds * 0.99);
  record.gflops = median_seconds > 0 ? 524288.0 / median_seconds / 1e9 : 0;
  record.compile_ms = 12.5;
  record.worker_id = "worker-7";
  return record;
}

Job MakeJob(const std::string& id, JobState state) {
  Job job;
  job.id = id;
  job.state = state;
  job.spec.workloads.push_back(WorkloadSource::Spec("matmul:M=64,N=64,K=64"));
  job.spec.device_key = "dev-1";
  job.spec.trials = 100;
  job.trials_total = 100;
  return job;
}

TaskRow MakeTask(const std::string& task_id, const std::string& job_id, const std::string& workload_key,
                 const std::string& device_key) {
  TaskRow row;
  row.task_id = task_id;
  row.job_id = job_id;
  row.workload_key = workload_key;
  row.device_key = device_key;
  row.task.workload = WorkloadSource::Spec("matmul:M=64,N=64,K=64");
  row.task.workload_key = workload_key;
  row.task.measure.repeat = 3;
  return row;
}

std::unique_ptr<RecordStore> OpenOrFail(const std::string& path, const RecordStoreOptions& options) {
  absl::StatusOr<std::unique_ptr<RecordStore>> store = RecordStore::Open(path, options);
  if (!store.ok()) {
    ADD_FAILURE() << store.status();
    return nullptr;
  }
  return *std::move(store);
}

std::string WithoutId(Record record) {
  record.id = 0;
  return RecordToJsonLine(record);
}

}  // namespace tuneforge::server::testing
