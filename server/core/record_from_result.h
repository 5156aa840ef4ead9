// A worker's MeasureResult for a task becomes the record the store keeps.
#pragma once

#include <string>

#include "measure/measure_types.h"
#include "server/domain/record.h"
#include "server/domain/task.h"

namespace tuneforge::server {

// `flops` of the workload turns the median time into GFLOPS (0 on error).
Record MakeRecord(const MeasureTask& task, const std::string& job_id, const std::string& device_key,
                  const std::string& worker_id, const std::string& workload_label, double flops,
                  const measure::MeasureResult& result);

// The result of a task that never got one (every lease of it lost).
measure::MeasureResult LostResult(int attempts);

}  // namespace tuneforge::server
