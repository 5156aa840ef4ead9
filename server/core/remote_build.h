// Builds for runner-only workers: the candidate and the reference of each
// task compiled here for the worker's target and shipped as objects, so a
// small board needs no compiler.
#pragma once

#include <memory>
#include <vector>

#include "measure/error_kind.h"
#include "server/core/workload_cache.h"
#include "server/domain/device.h"
#include "server/domain/task.h"

namespace tuneforge::server {

// Fills candidate and reference of every task for the device. A task that
// cannot be built keeps empty objects and gets an error kind: the
// dispatcher records it as that task's result instead of shipping it.
struct RemoteBuildResult {
  measure::MeasureErrorKind error_kind = measure::MeasureErrorKind::kNone;  // kNone: built
  std::string error;

  bool built() const { return error_kind == measure::MeasureErrorKind::kNone; }
};
class RemoteBuildService {
 public:
  virtual ~RemoteBuildService() = default;
  // One result per task, in order; the built ones get their objects.
  virtual std::vector<RemoteBuildResult> Build(const DeviceInfo& device, std::vector<MeasureTask*>& tasks) = 0;
};

// The builds run in builder processes (tuneforge-runner next to the server
// binary, or $TUNEFORGE_RUNNER); a compile that takes longer than
// `build_timeout_s` is killed and fails only its task. One lease's builds
// at a time.
std::unique_ptr<RemoteBuildService> MakeRemoteBuildService(WorkloadCache* workloads, double build_timeout_s);

}  // namespace tuneforge::server
