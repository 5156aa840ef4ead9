// The worker side of the dispatcher: registration, leases, reports and the
// worker list, as plain types (server/marshal/ converts them at the gRPC
// edge).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "measure/measure_types.h"
#include "server/domain/device.h"
#include "server/domain/task.h"

namespace tuneforge::server {

struct Registration {
  std::string worker_id;
  int heartbeat_interval_ms = 0;  // the worker heartbeats at least this often
};

// Tasks leased to one worker, to be reported before the deadline.
struct LeaseGrant {
  std::string lease_id;  // "" when nothing was leased
  std::vector<MeasureTask> tasks;
  int64_t deadline_unix_ms = 0;
};

struct TaskResult {
  std::string task_id;
  measure::MeasureResult result;
};

struct WorkerReport {
  std::string worker_id;
  std::string lease_id;
  std::vector<TaskResult> results;
};

struct ReportOutcome {
  int accepted = 0;   // new records stored now
  int duplicate = 0;  // stored before (a retried report)
  int rejected = 0;   // unknown task, or one whose job has ended
  int updated = 0;    // re-timings applied to a stored record
};

enum class WorkerState { kAlive, kLost };
const char* WorkerStateName(WorkerState state);  // "alive", "lost"

struct WorkerStatus {
  std::string id;
  DeviceInfo device;
  WorkerState state = WorkerState::kAlive;
  int leases = 0;  // tasks held now
  int64_t last_heartbeat_unix_ms = 0;
  int64_t measured = 0;  // results reported since registering
};

}  // namespace tuneforge::server
