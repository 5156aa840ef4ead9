// One measurement as the record store keeps it: the program (its schedule),
// where it ran, and how it ended.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "measure/error_kind.h"

namespace tuneforge::server {

// Current schema version of records (Record::schema_version).
inline constexpr int kRecordSchemaVersion = 1;

struct Record {
  int64_t id = 0;              // the store's; 0 until stored
  std::string workload_key;
  std::string workload;        // spec, or "def:<name>"
  std::string device_key;
  std::string job_id;
  std::string task_id;         // identifies the record across stores
  std::string schedule_json;   // the schedule file text (one line)
  measure::MeasureErrorKind error_kind = measure::MeasureErrorKind::kNone;
  std::string error;
  double median_seconds = 0;
  std::vector<double> repeat_seconds;
  double gflops = 0;
  double compile_ms = 0;
  std::string worker_id;
  int64_t created_unix_ms = 0;
  int schema_version = 0;      // 0: the store sets kRecordSchemaVersion
  // Timing sessions behind median_seconds: 1, more once re-timed (the
  // median is then over every session's repeats). 0 means 1.
  int timings = 0;
  // When its job's final comparison last timed it side by side with the
  // job's other leaders (ms since the epoch; 0: never). Its median and
  // repeats are then that comparison's alone: sessions from other moments
  // of a noisy machine do not decide the job's best.
  int64_t compared_at_unix_ms = 0;
  // For a compute definition ("def:NAME"), in exported and imported lines
  // only: the definition's text, so another store can replay the schedule.
  // The store keeps the text once per workload (its workloads table), not
  // in each record.
  std::string definition;

  bool ok() const { return error_kind == measure::MeasureErrorKind::kNone; }
};

}  // namespace tuneforge::server
