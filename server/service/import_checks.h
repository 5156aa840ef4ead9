// What an imported record must be before it is stored (tuneforge import
// --db, and the Records/Import call): what it claims. Its workload parses
// and has its workload_key; its schedule names that workload and replays
// against it; its time and GFLOPS are finite, positive, agree with the
// workload's FLOP count and are physically plausible. A line that
// RecordFromJsonLine read (types and ranges of the fields) can still be a
// lie that wins `best`; this is the check against that. Records of a failed
// measurement (any error kind but none) never win, so only their workload
// and key are checked.
#pragma once

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/te/workload.h"
#include "server/domain/record.h"

namespace tuneforge::server {

// The fastest any one device measures today is a few PFLOPS (dense tensor
// cores at low precision); tuneforge's kernels are float32/float64. 10 PFLOPS
// is far beyond what any record can honestly claim, yet leaves room for the
// GPU workers to come.
inline constexpr double kMaxPlausibleGflops = 1e7;
// No call of a compiled kernel, however small, returns in under a
// nanosecond (a few cycles); shorter medians are not measurements.
inline constexpr double kMinPlausibleSeconds = 1e-9;
// gflops is stored as flops / median_seconds / 1e9; re-timing rescales it.
// 1% allows the rounding of both, not a different figure.
inline constexpr double kGflopsTolerance = 0.01;

class ImportChecker {
 public:
  // `record` is what RecordFromJsonLine read from one line. INVALID_ARGUMENT
  // naming the field and the problem; the caller adds which line.
  absl::Status Check(const Record& record);

 private:
  // Parsed once per distinct spec (or definition): an import holds many
  // records of few workloads.
  absl::StatusOr<const te::Workload*> Workload(const std::string& spec, const char* field);
  // A compute definition's record: the workload its `definition` text defines.
  absl::StatusOr<const te::Workload*> Definition(const Record& record);

  std::map<std::string, te::Workload> workloads_;
};

}  // namespace tuneforge::server
