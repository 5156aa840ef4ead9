// Builds for runner-only workers: the candidate and the reference of each
// task compiled here for the worker's target and shipped as objects, so a
// small board needs no compiler.
#pragma once

#include <vector>

#include "proto/tuneforge.pb.h"
#include "server/core/workload_cache.h"
#include "measure/builder_pool.h"

namespace tuneforge::server {

// Fills candidate and reference of every task for the device. A task that
// cannot be built keeps empty objects and gets `build_error` set: the
// dispatcher records it as that task's result instead of shipping it.
struct RemoteBuildResult {
  std::string error_kind;  // "" when built
  std::string error;
};
// The builds run in `builders`' processes (a compile that hangs is killed
// at its deadline and fails only its task).
std::vector<RemoteBuildResult> BuildForDevice(const v1::DeviceInfo& device, WorkloadCache& workloads,
                                              measure::BuilderPool& builders,
                                              std::vector<v1::MeasureTask*>& tasks);

}  // namespace tuneforge::server
