// The dispatcher's state behind its lock: workers (WorkerTable), tasks and
// leases (TaskBook), builds for runner-only workers (RemoteBuildService).
// Its methods live in one file per question: dispatcher.cc (the API: who
// registers, who gets which tasks), dispatcher_reports.cc (how a result
// becomes a stored record), dispatcher_reaper.cc (what happens to silent
// workers and expired leases).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/core/dispatcher.h"
#include "server/core/remote_build.h"
#include "server/core/task_book.h"
#include "server/core/worker_table.h"
#include "server/core/workload_cache.h"

namespace tuneforge::server {

int64_t NowMs();

class DispatcherImpl : public Dispatcher {
 public:
  DispatcherImpl(RecordStore* store, DispatcherOptions options);
  ~DispatcherImpl() override { Shutdown(); }

  void SetResultSink(ResultSink* sink) override;
  void Enqueue(std::vector<TaskRow> tasks) override;
  void EnqueueAfterRestart(std::vector<TaskRow> tasks) override;
  void DropJob(const std::string& job_id) override;
  int Outstanding(const std::string& job_id) const override;
  absl::StatusOr<Registration> Register(const DeviceInfo& device) override;
  bool Heartbeat(const std::string& worker_id) override;
  absl::StatusOr<LeaseGrant> Lease(const std::string& worker_id, int max_tasks, int wait_ms) override;
  absl::StatusOr<ReportOutcome> Report(const WorkerReport& report) override;
  absl::StatusOr<int> Deregister(const std::string& worker_id) override;
  std::vector<WorkerStatus> ListWorkers() const override;
  bool HasWorkerFor(const std::string& device_key) const override;
  void Shutdown() override;

 private:
  static absl::Status UnknownWorker(const std::string& id);
  // A lease takes at most its share of what is queued for the device key
  // among the idle workers of that key (under mu_).
  int FairShare(const std::string& key, int max_tasks) const;
  // What a result of this task becomes: a new record, or a re-timing.
  MeasuredResult RecordFor(const TaskEntry& t, const std::string& device_key, const std::string& worker_id,
                           const measure::MeasureResult& result);
  // Runner-only workers get objects built here; a task that cannot be built
  // is answered right away with its build error.
  void ShipBuiltKernels(const DeviceInfo& device, const std::string& worker_id, LeaseGrant* lease);
  void ReaperLoop();
  void StoreLost(const std::vector<MeasuredResult>& lost);

  RecordStore* store_;
  DispatcherOptions options_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_, reaper_cv_;
  ResultSink* sink_ = nullptr;
  bool stopping_ = false;
  WorkerTable workers_;
  TaskBook book_;
  WorkloadCache workloads_;
  std::unique_ptr<RemoteBuildService> builds_;  // for runner-only workers
  std::thread reaper_;
};

}  // namespace tuneforge::server
