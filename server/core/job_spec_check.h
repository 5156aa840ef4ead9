// Validation of a submitted JobSpec: every field, with messages that name
// the field path and the fix. The parsed workloads come back so the job
// manager does not parse them twice.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "common/te/workload.h"
#include "server/domain/job.h"
#include "server/core/service_constants.h"

namespace tuneforge::server {

// Errors are INVALID_ARGUMENT: "spec.trials must be >= 1, got 0".
absl::StatusOr<std::vector<te::Workload>> CheckJobSpec(const JobSpec& spec);

}  // namespace tuneforge::server
