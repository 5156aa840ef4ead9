// One candidate to measure: what a worker leases. Persisted (without built
// kernels) until its record arrives, so a restarted server leases it again.
#pragma once

#include <optional>
#include <string>

#include "common/codegen/compiler.h"
#include "common/schedule/schedule.h"
#include "measure/measure_types.h"
#include "server/domain/workload_source.h"

namespace tuneforge::server {

struct MeasureTask {
  std::string task_id;
  WorkloadSource workload;
  std::string workload_key;  // the worker checks it against its own parse
  schedule::Schedule schedule;
  measure::MeasureOptions measure;
  // For runner-only workers: the candidate and the reference (unscheduled
  // program) built by the server for the worker's target.
  std::optional<codegen::CompiledObject> candidate;
  std::optional<codegen::CompiledObject> reference;
  // Set on a re-timing: the task id of the stored record whose program this
  // measures again; its result updates that record instead of adding one.
  std::string retime_of;
  // Set on a re-timing of the job's final comparison: when that comparison
  // was issued (ms since the epoch). The re-timed record then keeps only
  // this comparison's repeats (server/core/retiming.h).
  int64_t compared_at_unix_ms = 0;
  // How far behind the job's best the worker times the candidate less
  // (0s: in full); measure/behind_best.h.
  measure::BehindBest behind;
  // Seconds its build may take (0: the worker's build timeout);
  // server/core/build_deadline.h.
  double build_deadline_s = 0;
};

// A task with the keys the dispatcher and the store find it by.
struct TaskRow {
  std::string task_id;
  std::string job_id;
  std::string device_key;
  std::string workload_key;
  MeasureTask task;  // what a worker gets
};

}  // namespace tuneforge::server
