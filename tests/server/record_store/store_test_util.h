// Helpers for the record store tests: temporary directories, and records,
// jobs and tasks with the fields a test cares about.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "server/record_store/record_store.h"

struct sqlite3;

namespace tuneforge::server::testing {

// A fresh directory under the test temp dir, removed (with its files) at
// the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A plain SQLite connection to a store's file, as another program (or a
// test looking underneath) has it. Failures fail the test.
class RawDb {
 public:
  explicit RawDb(const std::string& path);
  ~RawDb();
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;
  void Exec(const std::string& sql);
  // One column of every row, as text.
  std::vector<std::string> Column(const std::string& sql, int column = 0);
  int64_t Int(const std::string& sql);  // the first row's first column; -1 if none

 private:
  sqlite3* db_ = nullptr;
};

// A schedule JSON text as records keep it.
std::string ScheduleText(int variant = 0);

// A record of a correct measurement (error_kind "none") unless error_kind
// says otherwise; every other field is filled with something recognisable.
Record MakeRecord(const std::string& task_id, const std::string& workload_key, const std::string& device_key,
                  double median_seconds, const std::string& error_kind = "none", const std::string& job_id = "job-1");

Job MakeJob(const std::string& id, JobState state = JobState::kRunning);
TaskRow MakeTask(const std::string& task_id, const std::string& job_id, const std::string& workload_key = "wk-a",
                 const std::string& device_key = "dev-1");

// Opens the store or fails the test (returns null then).
std::unique_ptr<RecordStore> OpenOrFail(const std::string& path, const RecordStoreOptions& options = {});

// Records of the store with every field but id; for comparing stores.
std::string WithoutId(Record record);

}  // namespace tuneforge::server::testing
