// An embedded `tune` that was killed leaves its job unfinished in the
// database, and the embedded server resumes it on the next start. Running
// the same command again must continue that job, not start a second one
// beside it: this finds it.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "client/api/jobs_client.h"

namespace tuneforge::cli {

// The newest queued or running job that tunes exactly the workload with key
// `workload_key` on `device_key`, if any.
absl::StatusOr<std::optional<v1::Job>> FindUnfinishedJob(client::JobsClient& jobs, const std::string& workload_key,
                                                         const std::string& device_key);

}  // namespace tuneforge::cli
