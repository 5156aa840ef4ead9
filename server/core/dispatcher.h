// Dispatcher: the workers and the measure tasks waiting for them.
//
//   JobManager --Enqueue(tasks)--> per-device-key queues (one per job, served
//                                  round-robin so jobs share workers fairly)
//   worker --Lease(max)--> tasks + a lease with a deadline
//   worker --Report(results)--> RecordStore (committed) --> ResultSink
//   reaper: a lease past its deadline, or held by a worker that missed its
//           heartbeats, goes back to the queue (attempts + 1); after
//           max_attempts the task is recorded as error "worker_lost".
//
// Runner-only workers (DeviceInfo::can_build false) get their candidates
// and references built here, for their target, at lease time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/core/service_constants.h"
#include "server/domain/device.h"
#include "server/domain/worker.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

// Defaults and their reasons: service_constants.h.
struct DispatcherOptions {
  int heartbeat_interval_ms = kHeartbeatIntervalMs;
  // A worker silent for this many intervals is lost; its leases return.
  int missed_heartbeats_before_lost = kMissedHeartbeatsBeforeLost;
  // How long a lost worker stays in the worker list.
  int64_t lost_worker_listed_ms = kLostWorkerListedMs;
  int max_attempts = kMaxAttempts;
  // Lease deadline: per task (its timeout plus build time) times tasks, plus this.
  int lease_slack_ms = kLeaseSlackMs;
  int reaper_period_ms = kReaperPeriodMs;
  // Tasks pending at a restart wait this long before they are leased again
  // (EnqueueAfterRestart), so the workers that held them can report first.
  int restart_grace_ms = kRestartGraceMs;
  // Builds for runner-only workers run in builder processes (tuneforge-runner
  // next to the server binary, or $TUNEFORGE_RUNNER); a compile that takes
  // longer is that task's compile_error.
  double build_timeout_s = kBuildTimeoutS;
};

// Receives every stored result (after commit), in report order; a trial
// reported twice comes once. Called before the results' tasks leave the
// dispatcher's book: Outstanding() counts them until OnResults returns.
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  virtual void OnResults(const std::vector<MeasuredResult>& results) = 0;
};

class Dispatcher {
 public:
  static std::unique_ptr<Dispatcher> Create(RecordStore* store, DispatcherOptions options);
  virtual ~Dispatcher() = default;

  virtual void SetResultSink(ResultSink* sink) = 0;

  // ---- JobManager side ---------------------------------------------------------
  // Tasks are already persisted (RecordStore::AddTasks) by the caller.
  virtual void Enqueue(std::vector<TaskRow> tasks) = 0;
  // The pending tasks of a job resumed after a restart: some were leased
  // before it, and their workers may still report them, so none is leased
  // again before restart_grace_ms (a report of one meanwhile finishes it).
  virtual void EnqueueAfterRestart(std::vector<TaskRow> tasks) = 0;
  // Drops the job's queued tasks and voids its leases (cancel, done).
  virtual void DropJob(const std::string& job_id) = 0;
  // Tasks of the job queued or leased now.
  virtual int Outstanding(const std::string& job_id) const = 0;

  // ---- Worker side (the Workers service) ---------------------------------------
  virtual absl::StatusOr<Registration> Register(const DeviceInfo& device) = 0;
  // Whether the server knows the worker (false: register again; its leases are void).
  virtual bool Heartbeat(const std::string& worker_id) = 0;
  // NOT_FOUND for an unknown worker (it should register again). Waits up to
  // wait_ms for work when none is queued for its device key.
  virtual absl::StatusOr<LeaseGrant> Lease(const std::string& worker_id, int max_tasks, int wait_ms) = 0;
  // Stores the results (returns after commit), then passes them to the
  // sink. Results for tasks that are not leased to this worker are still
  // stored when their job is running and the task is unfinished (a worker
  // reporting after a server restart); the rest are rejected.
  virtual absl::StatusOr<ReportOutcome> Report(const WorkerReport& report) = 0;
  // The worker's leased tasks go back to the queue; returns how many.
  virtual absl::StatusOr<int> Deregister(const std::string& worker_id) = 0;
  virtual std::vector<WorkerStatus> ListWorkers() const = 0;
  // Whether a registered, not lost worker has this device key (a job stays
  // queued until one does).
  virtual bool HasWorkerFor(const std::string& device_key) const = 0;

  // Stops the reaper and wakes waiting leases.
  virtual void Shutdown() = 0;
};

}  // namespace tuneforge::server
