// A worker's MeasureResult for a task becomes the record the store keeps.
#pragma once

#include <string>

#include "proto/tuneforge.pb.h"

namespace tuneforge::server {

// `flops` of the workload turns the median time into GFLOPS (0 on error).
v1::Record MakeRecord(const v1::MeasureTask& task, const std::string& job_id,
                      const std::string& device_key, const std::string& worker_id,
                      const std::string& workload_label, double flops,
                      const v1::MeasureResult& result);

// The record of a task that never got a result (every lease of it lost).
v1::MeasureResult LostResult(const std::string& task_id, int attempts);

}  // namespace tuneforge::server
