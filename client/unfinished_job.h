// An embedded `tune` that was killed leaves its job unfinished in the
// database, and the embedded server resumes it on the next start. Running
// the same command again must continue that job, not start a second one
// beside it: this finds it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/api/jobs_client.h"

namespace tuneforge::cli {

// The newest queued or running job that tunes exactly the workloads with
// keys `workload_keys` (one for a single op; a model's tasks, in any order)
// on `device_key`, if any.
absl::StatusOr<std::optional<v1::Job>> FindUnfinishedJob(client::JobsClient& jobs,
                                                         std::vector<std::string> workload_keys,
                                                         const std::string& device_key);

}  // namespace tuneforge::cli
