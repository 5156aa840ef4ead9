// Caps on what one call may ask for. They keep a single request from
// holding the server's memory or an RPC thread for long; the messages that
// enforce them say which cap was hit and how to stay under it.
#pragma once

#include <cstdint>

#include "absl/time/time.h"

namespace tuneforge::server::limits {

// Identifiers (job, worker, lease, task ids) and short names.
inline constexpr int kMaxIdLength = 128;
inline constexpr int kMaxNameLength = 256;
inline constexpr int kMaxDeviceKeyLength = 128;

// Jobs (the job spec's own rules: server/core/job_spec_check.h).
inline constexpr int kMaxSpecLength = 4096;          // "conv2d:N=1,..."
inline constexpr int kMaxDefinitionBytes = 1 << 20;  // a compute-definition text
inline constexpr int kMaxListLimit = 10'000;
inline constexpr int kDefaultListLimit = 100;

// Workers.
inline constexpr int kMaxLeaseTasks = 256;
inline constexpr int kMaxLeaseWaitMs = 10'000;  // long polls are cut to this
inline constexpr int kMaxReportResults = 4 * kMaxLeaseTasks;
inline constexpr int kMaxRepeatSeconds = 10'000;  // timings per result
inline constexpr int kMaxErrorTextBytes = 64 << 10;
inline constexpr int kMaxDeviceTextLength = 4096;  // cpu, features, hostname

// Records.
inline constexpr int kMaxQueryLimit = 10'000;
inline constexpr int kDefaultQueryLimit = 100;
inline constexpr int kExportChunkLines = 1000;
inline constexpr int64_t kExportChunkBytes = 1 << 20;
inline constexpr int64_t kMaxImportChunkBytes = 64 << 20;
inline constexpr int64_t kMaxImportLineBytes = 16 << 20;

// Watch re-checks the client and the server this often while a job is quiet.
inline constexpr absl::Duration kWatchPollInterval = absl::Seconds(1);

}  // namespace tuneforge::server::limits
