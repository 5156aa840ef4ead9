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

v1::Record MakeRecord(const std::string& task_id, const std::string& workload_key, const std::string& device_key,
                      double median_seconds, const std::string& error_kind, const std::string& job_id) {
  v1::Record record;
  record.set_task_id(task_id);
  record.set_workload_key(workload_key);
  record.set_workload("matmul:K=64,M=64,N=64");
  record.set_device_key(device_key);
  record.set_job_id(job_id);
  record.set_schedule_json(ScheduleText());
  record.set_error_kind(error_kind);
  if (error_kind != "none") record.set_error(absl::StrCat("it failed: ", error_kind));
  record.set_median_seconds(median_seconds);
  record.add_repeat_seconds(median_seconds);
  record.add_repeat_seconds(median_seconds * 1.01);
  record.add_repeat_seconds(median_seconds * 0.99);
  record.set_gflops(median_seconds > 0 ? 524288.0 / median_seconds / 1e9 : 0);
  record.set_compile_ms(12.5);
  record.set_worker_id("worker-7");
  return record;
}

v1::Job MakeJob(const std::string& id, v1::JobState state) {
  v1::Job job;
  job.set_id(id);
  job.set_state(state);
  job.mutable_spec()->add_workloads()->set_spec("matmul:M=64,N=64,K=64");
  job.mutable_spec()->set_device_key("dev-1");
  job.mutable_spec()->set_trials(100);
  job.set_trials_total(100);
  return job;
}

TaskRow MakeTask(const std::string& task_id, const std::string& job_id, const std::string& workload_key,
                 const std::string& device_key) {
  TaskRow row;
  row.task_id = task_id;
  row.job_id = job_id;
  row.workload_key = workload_key;
  row.device_key = device_key;
  row.task.mutable_workload()->set_spec("matmul:M=64,N=64,K=64");
  row.task.set_workload_key(workload_key);
  row.task.mutable_measure()->set_repeat(3);
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

std::string WithoutId(v1::Record record) {
  record.set_id(0);
  return record.DebugString();
}

}  // namespace tuneforge::server::testing
