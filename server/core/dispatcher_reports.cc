// How a worker's results become stored records: reports, the build errors
// of runner-only workers' tasks, and the worker_lost records of tasks whose
// every lease ended without a result.
#include "server/core/dispatcher_impl.h"
#include "server/core/record_from_result.h"

namespace tuneforge::server {
namespace {

// The results the store took as new: a trial reported twice (two leases of
// one task reporting at once) is counted once. A re-timing is passed on
// either way: the job manager re-reads its totals from the store.
std::vector<MeasuredResult> NewResults(std::vector<MeasuredResult> results, const std::vector<int64_t>& ids) {
  std::vector<MeasuredResult> fresh;
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].is_retime() || i >= ids.size() || ids[i] != 0) fresh.push_back(std::move(results[i]));
  return fresh;
}

}  // namespace

absl::StatusOr<ReportOutcome> DispatcherImpl::Report(const WorkerReport& report) {
  std::vector<MeasuredResult> records;
  std::vector<std::string> task_ids;
  ReportOutcome outcome;
  ResultSink* sink = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const WorkerEntry* w = workers_.Find(report.worker_id);
    std::string device_key = w ? w->device.device_key : "";
    for (const TaskResult& result : report.results) {
      // A task queued again after a restart or an expired lease is still
      // here: the late result is kept, and the queued copy is not leased.
      const TaskEntry* t = book_.Find(result.task_id);
      if (!t) {
        ++outcome.rejected;  // finished, cancelled or unknown
        continue;
      }
      records.push_back(RecordFor(*t, device_key.empty() ? t->row.device_key : device_key, report.worker_id,
                                  result.result));
      task_ids.push_back(result.task_id);
    }
    sink = sink_;
  }
  if (records.empty()) return outcome;
  absl::StatusOr<AddOutcome> added = store_->AddResults(records);
  if (!added.ok()) return added.status();  // the worker keeps its results and retries
  outcome.accepted = added->accepted;
  outcome.updated = added->updated;
  outcome.duplicate = added->duplicate;
  // The job manager takes the results in before their tasks leave the book:
  // a job whose last task is done is planned, or ended, with them counted.
  if (sink) sink->OnResults(NewResults(std::move(records), added->ids));
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& id : task_ids) book_.Finish(id);
    if (WorkerEntry* w = workers_.Find(report.worker_id)) {
      w->measured += static_cast<int64_t>(task_ids.size());
      w->last_heartbeat_ms = NowMs();
      // A lease whose tasks are all reported is over.
      if (book_.EndLeaseIfDone(report.lease_id)) w->leases.erase(report.lease_id);
    }
  }
  return outcome;
}

MeasuredResult DispatcherImpl::RecordFor(const TaskEntry& t, const std::string& device_key,
                                         const std::string& worker_id, const measure::MeasureResult& result) {
  absl::StatusOr<te::Workload> w = workloads_.Get(t.row.workload_key, t.row.task.workload);
  double flops = w.ok() ? w->dag->flops() : 0;
  std::string label = w.ok() ? WorkloadLabel(t.row.task.workload, *w) : t.row.workload_key;
  return {MakeRecord(t.row.task, t.row.job_id, device_key, worker_id, label, flops, result), t.row.task.retime_of,
          result.run_wall_ms, t.row.task.compared_at_unix_ms};
}

void DispatcherImpl::ShipBuiltKernels(const DeviceInfo& device, const std::string& worker_id, LeaseGrant* lease) {
  std::vector<MeasureTask*> tasks;
  for (MeasureTask& t : lease->tasks) tasks.push_back(&t);
  std::vector<RemoteBuildResult> built = builds_->Build(device, tasks);
  WorkerReport failures{worker_id, lease->lease_id, {}};
  std::vector<MeasureTask> shipped;
  for (size_t i = 0; i < built.size(); ++i) {
    if (built[i].built()) {
      shipped.push_back(std::move(*tasks[i]));
      continue;
    }
    failures.results.push_back(
        {tasks[i]->task_id, measure::MeasureResult::Failure(built[i].error_kind, built[i].error)});
  }
  lease->tasks = std::move(shipped);
  if (!failures.results.empty()) (void)Report(failures);
}

void DispatcherImpl::StoreLost(const std::vector<MeasuredResult>& lost) {
  absl::StatusOr<AddOutcome> added = store_->AddResults(lost);
  if (!added.ok()) return;  // the tasks stay outstanding: retried next round
  ResultSink* sink;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sink = sink_;
  }
  if (sink) sink->OnResults(NewResults(lost, added->ids));  // before the tasks leave the book (Report)
  std::lock_guard<std::mutex> lock(mu_);
  for (const MeasuredResult& r : lost) book_.Finish(r.record.task_id);
}

}  // namespace tuneforge::server
