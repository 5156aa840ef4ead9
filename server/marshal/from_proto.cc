#include "server/marshal/from_proto.h"

#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_proto.h"
#include "measure/measure_proto.h"

namespace tuneforge::server {

WorkloadSource FromProto(const v1::Workload& workload) { return measure::WorkloadSourceFromProto(workload); }

JobState FromProto(v1::JobState state) {
  switch (state) {
    case v1::JOB_STATE_QUEUED: return JobState::kQueued;
    case v1::JOB_STATE_RUNNING: return JobState::kRunning;
    case v1::JOB_STATE_DONE: return JobState::kDone;
    case v1::JOB_STATE_FAILED: return JobState::kFailed;
    case v1::JOB_STATE_CANCELLED: return JobState::kCancelled;
    default: return JobState::kUnspecified;
  }
}

JobSpec FromProto(const v1::JobSpec& spec) {
  JobSpec s;
  for (const v1::Workload& w : spec.workloads()) s.workloads.push_back(FromProto(w));
  s.device_key = spec.device_key();
  s.trials = spec.trials();
  s.policy = spec.policy();
  s.batch_size = spec.batch_size();
  s.measure = measure::MeasureOptionsFromProto(spec.measure());
  s.seed = spec.seed();
  s.name = spec.name();
  s.retime_top = spec.retime_top();
  s.task_scheduler = spec.task_scheduler();
  s.weights.assign(spec.weights().begin(), spec.weights().end());
  s.sketch_selection = spec.sketch_selection();
  s.droplet_after = spec.droplet_after();
  s.mutation_choice = spec.mutation_choice();
  if (spec.has_neighbour_share()) s.neighbour_share = spec.neighbour_share();
  s.form_of.assign(spec.form_of().begin(), spec.form_of().end());
  s.untuned.assign(spec.untuned().begin(), spec.untuned().end());
  return s;
}

SearchCost FromProto(const v1::SearchCost& cost) {
  return {cost.propose_seconds(), cost.learn_seconds(), cost.programs_scored()};
}

MeasureCost FromProto(const v1::MeasureCost& cost) {
  return {cost.compile_seconds(), cost.run_seconds(), cost.retime_seconds()};
}

Job FromProto(const v1::Job& job) {
  Job j;
  j.id = job.id();
  j.spec = FromProto(job.spec());
  j.state = FromProto(job.state());
  j.trials_done = job.trials_done();
  j.trials_total = job.trials_total();
  j.best_gflops = job.best_gflops();
  j.best_seconds = job.best_seconds();
  j.best_schedule_json = job.best_schedule_json();
  j.best_workload_key = job.best_workload_key();
  j.error = job.error();
  j.created_unix_ms = job.created_unix_ms();
  j.updated_unix_ms = job.updated_unix_ms();
  j.errors = job.errors();
  j.retimed = job.retimed();
  j.search_total = FromProto(job.search_total());
  j.search_last_round = FromProto(job.search_last_round());
  j.measure_total = FromProto(job.measure_total());
  j.no_candidate_succeeded = job.no_candidate_succeeded();
  for (const v1::TaskProgress& t : job.tasks())
    j.tasks.push_back({t.workload_key(), t.workload(), t.trials(), t.best_seconds(), t.weight()});
  return j;
}

DeviceInfo FromProto(const v1::DeviceInfo& device) {
  DeviceInfo d;
  d.device_key = device.device_key();
  d.triple = device.triple();
  d.cpu = device.cpu();
  d.features = device.features();
  d.cores = device.cores();
  d.l1_bytes = device.l1_bytes();
  d.l2_bytes = device.l2_bytes();
  d.l3_bytes = device.l3_bytes();
  d.hostname = device.hostname();
  d.can_build = device.can_build();
  d.kind = device.kind() == v1::DEVICE_KIND_GPU        ? DeviceInfo::Kind::kGpu
           : device.kind() == v1::DEVICE_KIND_EMULATED ? DeviceInfo::Kind::kEmulated
                                                       : DeviceInfo::Kind::kCpu;
  return d;
}

absl::StatusOr<MeasureTask> FromProto(const v1::MeasureTask& task) {
  MeasureTask t;
  t.task_id = task.task_id();
  t.workload = FromProto(task.workload());
  t.workload_key = task.workload_key();
  absl::StatusOr<schedule::Schedule> s = schedule::ScheduleFromProto(task.schedule());
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("schedule: ", s.status().message()));
  t.schedule = *std::move(s);
  t.measure = measure::MeasureOptionsFromProto(task.measure());
  if (task.has_candidate()) t.candidate = measure::KernelObjectFromProto(task.candidate());
  if (task.has_reference()) t.reference = measure::KernelObjectFromProto(task.reference());
  t.retime_of = task.retime_of();
  t.compared_at_unix_ms = task.compared_at_unix_ms();
  t.behind = {.slow_above_s = task.slow_above_seconds(),
              .probe_above_s = task.probe_above_seconds(),
              .contend_above_s = task.contend_above_seconds()};
  t.build_deadline_s = task.build_deadline_seconds();
  return t;
}

absl::StatusOr<WorkerReport> FromProto(const v1::ReportRequest& report) {
  WorkerReport r;
  r.worker_id = report.worker_id();
  r.lease_id = report.lease_id();
  for (int i = 0; i < report.results_size(); ++i) {
    absl::StatusOr<measure::MeasureResult> result = measure::MeasureResultFromProto(report.results(i));
    if (!result.ok())
      return absl::InvalidArgumentError(absl::StrCat("results[", i, "].", result.status().message()));
    r.results.push_back({report.results(i).task_id(), *std::move(result)});
  }
  return r;
}

}  // namespace tuneforge::server
