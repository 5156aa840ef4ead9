// How a worker's results become stored records: reports, the build errors
// of runner-only workers' tasks, and the worker_lost records of tasks whose
// every lease ended without a result.
#include "measure/error_kind.h"
#include "server/core/dispatcher_impl.h"
#include "server/core/record_from_result.h"

namespace tuneforge::server {

absl::StatusOr<v1::ReportResponse> DispatcherImpl::Report(const v1::ReportRequest& request) {
  std::vector<MeasuredResult> records;
  std::vector<std::string> task_ids;
  v1::ReportResponse response;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const WorkerEntry* w = workers_.Find(request.worker_id());
    std::string device_key = w ? w->device.device_key() : "";
    for (const v1::MeasureResult& result : request.results()) {
      // A task queued again after a restart or an expired lease is still
      // here: the late result is kept, and the queued copy is not leased.
      const TaskEntry* t = book_.Find(result.task_id());
      if (!t) {
        response.set_rejected(response.rejected() + 1);  // finished, cancelled or unknown
        continue;
      }
      records.push_back(RecordFor(*t, device_key.empty() ? t->row.device_key : device_key,
                                  request.worker_id(), result));
      task_ids.push_back(result.task_id());
    }
  }
  if (records.empty()) return response;
  absl::StatusOr<AddOutcome> added = store_->AddResults(records);
  if (!added.ok()) return added.status();  // the worker keeps its results and retries
  response.set_accepted(added->accepted);
  response.set_updated(added->updated);
  response.set_duplicate(added->duplicate);
  ResultSink* sink = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& id : task_ids) book_.Finish(id);
    if (WorkerEntry* w = workers_.Find(request.worker_id())) {
      w->measured += static_cast<int64_t>(task_ids.size());
      w->last_heartbeat_ms = NowMs();
      // A lease whose tasks are all reported is over.
      if (book_.EndLeaseIfDone(request.lease_id())) w->leases.erase(request.lease_id());
    }
    sink = sink_;
  }
  if (sink) sink->OnResults(records);
  return response;
}

MeasuredResult DispatcherImpl::RecordFor(const TaskEntry& t, const std::string& device_key,
                                         const std::string& worker_id, const v1::MeasureResult& result) {
  absl::StatusOr<te::Workload> w = workloads_.Get(t.row.workload_key, t.row.task.workload());
  double flops = w.ok() ? w->dag->flops() : 0;
  std::string label = w.ok() ? WorkloadLabel(t.row.task.workload(), *w) : t.row.workload_key;
  return {MakeRecord(t.row.task, t.row.job_id, device_key, worker_id, label, flops, result), t.row.task.retime_of()};
}

void DispatcherImpl::ShipBuiltKernels(const v1::DeviceInfo& device, const std::string& worker_id,
                                      v1::LeaseResponse* response) {
  std::vector<v1::MeasureTask*> tasks;
  for (v1::MeasureTask& t : *response->mutable_tasks()) tasks.push_back(&t);
  std::vector<RemoteBuildResult> built = builds_->Build(device, tasks);
  v1::ReportRequest failures;
  failures.set_worker_id(worker_id);
  failures.set_lease_id(response->lease_id());
  google::protobuf::RepeatedPtrField<v1::MeasureTask> shipped;
  for (size_t i = 0; i < built.size(); ++i) {
    if (built[i].error_kind.empty()) {
      *shipped.Add() = *tasks[i];
      continue;
    }
    v1::MeasureResult* r = failures.add_results();
    r->set_task_id(tasks[i]->task_id());
    r->set_error_kind(measure::ErrorKindToProto(
        measure::ParseErrorKind(built[i].error_kind).value_or(measure::MeasureErrorKind::kRunnerError)));
    r->set_error(built[i].error);
  }
  response->mutable_tasks()->Swap(&shipped);
  if (failures.results_size() > 0) (void)Report(failures);
}

void DispatcherImpl::StoreLost(const std::vector<MeasuredResult>& lost) {
  absl::StatusOr<AddOutcome> added = store_->AddResults(lost);
  if (!added.ok()) return;  // the tasks stay outstanding: retried next round
  ResultSink* sink;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const MeasuredResult& r : lost) book_.Finish(r.record.task_id());
    sink = sink_;
  }
  if (sink) sink->OnResults(lost);
}

}  // namespace tuneforge::server
