#include "server/marshal/to_proto.h"

#include "common/schedule/schedule_proto.h"
#include "measure/measure_proto.h"

namespace tuneforge::server {

v1::Workload ToProto(const WorkloadSource& workload) { return measure::WorkloadSourceToProto(workload); }

v1::JobState ToProto(JobState state) {
  switch (state) {
    case JobState::kUnspecified: return v1::JOB_STATE_UNSPECIFIED;
    case JobState::kQueued: return v1::JOB_STATE_QUEUED;
    case JobState::kRunning: return v1::JOB_STATE_RUNNING;
    case JobState::kDone: return v1::JOB_STATE_DONE;
    case JobState::kFailed: return v1::JOB_STATE_FAILED;
    case JobState::kCancelled: return v1::JOB_STATE_CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

v1::JobSpec ToProto(const JobSpec& spec) {
  v1::JobSpec p;
  for (const WorkloadSource& w : spec.workloads) *p.add_workloads() = ToProto(w);
  p.set_device_key(spec.device_key);
  p.set_trials(spec.trials);
  p.set_policy(spec.policy);
  p.set_batch_size(spec.batch_size);
  *p.mutable_measure() = measure::MeasureOptionsToProto(spec.measure);
  p.set_seed(spec.seed);
  p.set_name(spec.name);
  p.set_retime_top(spec.retime_top);
  p.set_task_scheduler(spec.task_scheduler);
  p.mutable_weights()->Assign(spec.weights.begin(), spec.weights.end());
  p.set_sketch_selection(spec.sketch_selection);
  p.set_droplet_after(spec.droplet_after);
  p.set_mutation_choice(spec.mutation_choice);
  if (spec.neighbour_share) p.set_neighbour_share(*spec.neighbour_share);
  p.mutable_form_of()->Assign(spec.form_of.begin(), spec.form_of.end());
  for (bool u : spec.untuned) p.add_untuned(u);
  return p;
}

v1::SearchCost ToProto(const SearchCost& cost) {
  v1::SearchCost p;
  p.set_propose_seconds(cost.propose_seconds);
  p.set_learn_seconds(cost.learn_seconds);
  p.set_programs_scored(cost.programs_scored);
  return p;
}

v1::MeasureCost ToProto(const MeasureCost& cost) {
  v1::MeasureCost p;
  p.set_compile_seconds(cost.compile_seconds);
  p.set_run_seconds(cost.run_seconds);
  p.set_retime_seconds(cost.retime_seconds);
  return p;
}

v1::Job ToProto(const Job& job) {
  v1::Job p;
  p.set_id(job.id);
  *p.mutable_spec() = ToProto(job.spec);
  p.set_state(ToProto(job.state));
  p.set_trials_done(job.trials_done);
  p.set_trials_total(job.trials_total);
  p.set_best_gflops(job.best_gflops);
  p.set_best_seconds(job.best_seconds);
  p.set_best_schedule_json(job.best_schedule_json);
  p.set_best_workload_key(job.best_workload_key);
  p.set_error(job.error);
  p.set_created_unix_ms(job.created_unix_ms);
  p.set_updated_unix_ms(job.updated_unix_ms);
  p.set_errors(job.errors);
  p.set_retimed(job.retimed);
  *p.mutable_search_total() = ToProto(job.search_total);
  *p.mutable_search_last_round() = ToProto(job.search_last_round);
  *p.mutable_measure_total() = ToProto(job.measure_total);
  p.set_no_candidate_succeeded(job.no_candidate_succeeded);
  for (const TaskProgress& t : job.tasks) {
    v1::TaskProgress* task = p.add_tasks();
    task->set_workload_key(t.workload_key);
    task->set_workload(t.workload);
    task->set_trials(t.trials);
    task->set_best_seconds(t.best_seconds);
    task->set_weight(t.weight);
  }
  return p;
}

v1::JobProgress ToProto(const JobProgress& progress) {
  v1::JobProgress p;
  *p.mutable_job() = ToProto(progress.job);
  p.set_message(progress.message);
  p.set_eta_s(progress.eta_s);
  return p;
}

v1::DeviceInfo ToProto(const DeviceInfo& device) {
  v1::DeviceInfo p;
  p.set_device_key(device.device_key);
  p.set_triple(device.triple);
  p.set_cpu(device.cpu);
  p.set_features(device.features);
  p.set_cores(device.cores);
  p.set_l1_bytes(device.l1_bytes);
  p.set_l2_bytes(device.l2_bytes);
  p.set_l3_bytes(device.l3_bytes);
  p.set_hostname(device.hostname);
  p.set_can_build(device.can_build);
  p.set_kind(device.kind == DeviceInfo::Kind::kGpu        ? v1::DEVICE_KIND_GPU
             : device.kind == DeviceInfo::Kind::kEmulated ? v1::DEVICE_KIND_EMULATED
                                                          : v1::DEVICE_KIND_CPU);
  return p;
}

v1::MeasureTask ToProto(const MeasureTask& task) {
  v1::MeasureTask p;
  p.set_task_id(task.task_id);
  *p.mutable_workload() = ToProto(task.workload);
  p.set_workload_key(task.workload_key);
  *p.mutable_schedule() = schedule::ScheduleToProto(task.schedule);
  *p.mutable_measure() = measure::MeasureOptionsToProto(task.measure);
  if (task.candidate) *p.mutable_candidate() = measure::KernelObjectToProto(*task.candidate);
  if (task.reference) *p.mutable_reference() = measure::KernelObjectToProto(*task.reference);
  p.set_retime_of(task.retime_of);
  p.set_compared_at_unix_ms(task.compared_at_unix_ms);
  p.set_slow_above_seconds(task.behind.slow_above_s);
  p.set_probe_above_seconds(task.behind.probe_above_s);
  p.set_contend_above_seconds(task.behind.contend_above_s);
  p.set_build_deadline_seconds(task.build_deadline_s);
  return p;
}

v1::Record ToProto(const Record& record) {
  v1::Record p;
  p.set_id(record.id);
  p.set_workload_key(record.workload_key);
  p.set_workload(record.workload);
  p.set_device_key(record.device_key);
  p.set_job_id(record.job_id);
  p.set_task_id(record.task_id);
  p.set_schedule_json(record.schedule_json);
  p.set_error_kind(measure::ErrorKindName(record.error_kind));
  p.set_error(record.error);
  p.set_median_seconds(record.median_seconds);
  p.mutable_repeat_seconds()->Assign(record.repeat_seconds.begin(), record.repeat_seconds.end());
  p.set_gflops(record.gflops);
  p.set_compile_ms(record.compile_ms);
  p.set_worker_id(record.worker_id);
  p.set_created_unix_ms(record.created_unix_ms);
  p.set_schema_version(record.schema_version);
  p.set_timings(record.timings);
  p.set_compared_at_unix_ms(record.compared_at_unix_ms);
  return p;
}

v1::RegisterWorkerResponse ToProto(const Registration& registration) {
  v1::RegisterWorkerResponse p;
  p.set_worker_id(registration.worker_id);
  p.set_heartbeat_interval_ms(registration.heartbeat_interval_ms);
  return p;
}

v1::LeaseResponse ToProto(const LeaseGrant& lease) {
  v1::LeaseResponse p;
  p.set_lease_id(lease.lease_id);
  for (const MeasureTask& task : lease.tasks) *p.add_tasks() = ToProto(task);
  p.set_deadline_unix_ms(lease.deadline_unix_ms);
  return p;
}

v1::ReportResponse ToProto(const ReportOutcome& outcome) {
  v1::ReportResponse p;
  p.set_accepted(outcome.accepted);
  p.set_duplicate(outcome.duplicate);
  p.set_rejected(outcome.rejected);
  p.set_updated(outcome.updated);
  return p;
}

v1::WorkerStatus ToProto(const WorkerStatus& worker) {
  v1::WorkerStatus p;
  p.set_id(worker.id);
  *p.mutable_device() = ToProto(worker.device);
  p.set_state(WorkerStateName(worker.state));
  p.set_leases(worker.leases);
  p.set_last_heartbeat_unix_ms(worker.last_heartbeat_unix_ms);
  p.set_measured(worker.measured);
  return p;
}

}  // namespace tuneforge::server
