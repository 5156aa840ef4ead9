#include "worker/agent/task_executor.h"

#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_proto.h"
#include "measure/measure_proto.h"

namespace tuneforge::worker {
namespace {

using measure::MeasureErrorKind;

// Bounded so a long-lived worker does not collect every workload it saw.
constexpr size_t kMaxCachedReferences = 64;
// Candidates kept for their re-timing: a few rounds of conv candidates
// (objects of 10-200 KB).
constexpr size_t kMaxCachedCandidateBytes = 64 << 20;

v1::MeasureResult ErrorResult(const std::string& task_id, MeasureErrorKind kind,
                              std::string error) {
  return measure::MeasureResultToProto(measure::MeasureResult::Failure(kind, std::move(error)), task_id);
}

measure::BuiltKernel Shipped(const v1::BuiltKernel& kernel, const te::ComputeDag& dag) {
  measure::BuiltKernel k;
  k.object = measure::KernelObjectFromProto(kernel);
  k.args = measure::DagArgSpecs(dag);
  return k;
}

}  // namespace

struct TaskExecutor::Prepared {
  measure::WorkloadSource source;  // as the task gave it, for the builder processes
  std::shared_ptr<const te::Workload> workload;
  std::vector<schedule::Step> steps;
  double build_deadline_s = 0;  // the task's (0: the worker's build timeout)
  bool retime = false;          // a re-timing of a program measured before
  std::optional<v1::MeasureResult> settled;  // failed before anything was timed
  std::shared_ptr<const measure::BuiltKernel> reference;
  measure::BuiltKernel candidate;
};

absl::StatusOr<std::unique_ptr<TaskExecutor>> TaskExecutor::Create(ExecutorOptions options) {
  if (!(options.build_timeout_s > 0))
    return absl::InvalidArgumentError(absl::StrCat("build timeout ", options.build_timeout_s,
                                                   " s: it must be positive seconds"));
  std::unique_ptr<TaskExecutor> executor(
      new TaskExecutor(options, options.target ? *options.target : codegen::Target::Host()));
  // Finds the runner binary now, so a worker without one fails at start.
  absl::StatusOr<measure::Measurer*> measurer = executor->measurers_.Get(v1::MeasureOptions());
  if (!measurer.ok()) return measurer.status();
  return executor;
}

TaskExecutor::TaskExecutor(ExecutorOptions options, codegen::Target host)
    : options_(std::move(options)),
      host_(host),
      measurers_(host, options_.runner_path),
      built_candidates_(kMaxCachedCandidateBytes) {
  if (!options_.runner_only) {
    measure::MeasureOptions runner;
    runner.runner_path = options_.runner_path;
    builders_ = std::make_unique<measure::BuilderPool>(measure::RunnerChildConfig(runner),
                                                       options_.build_jobs, options_.build_timeout_s);
  }
}

TaskExecutor::~TaskExecutor() = default;

std::vector<v1::MeasureResult> TaskExecutor::Execute(const std::vector<v1::MeasureTask>& tasks,
                                                     const std::function<bool()>& stop) {
  std::vector<Prepared> prepared(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) Prepare(tasks[i], prepared[i]);
  if (!options_.runner_only) BuildAll(prepared, stop);
  std::vector<v1::MeasureResult> results;
  for (size_t i = 0; i < tasks.size() && !stop(); ++i) {
    results.push_back(Time(tasks[i], prepared[i], LimitsFor(tasks[i])));
    RememberBest(tasks[i], results.back());
  }
  return results;
}

std::string TaskExecutor::BestKey(const v1::MeasureTask& task) {
  // Times are comparable only under the same options (threads, flushing).
  return absl::StrCat(task.workload_key(), "/", task.measure().SerializeAsString());
}

measure::BehindBest TaskExecutor::LimitsFor(const v1::MeasureTask& task) const {
  const measure::BehindBest sent{.slow_above_s = task.slow_above_seconds(),
                                 .probe_above_s = task.probe_above_seconds(),
                                 .contend_above_s = task.contend_above_seconds()};
  if (!task.retime_of().empty()) return sent;  // a leader is timed in full
  auto best = best_seconds_.find(BestKey(task));
  return best == best_seconds_.end() ? sent : measure::Tighter(sent, measure::BehindBestOf(best->second));
}

void TaskExecutor::RememberBest(const v1::MeasureTask& task, const v1::MeasureResult& result) {
  if (result.error_kind() != v1::MEASURE_ERROR_KIND_NONE || !(result.median_seconds() > 0)) return;
  if (best_seconds_.size() >= kMaxCachedReferences) best_seconds_.clear();
  auto [it, added] = best_seconds_.try_emplace(BestKey(task), result.median_seconds());
  if (!added) it->second = std::min(it->second, result.median_seconds());
}

void TaskExecutor::Prepare(const v1::MeasureTask& task, Prepared& out) {
  absl::StatusOr<std::shared_ptr<const te::Workload>> workload = workloads_.Get(task.workload());
  if (!workload.ok()) {
    out.settled = ErrorResult(task.task_id(), MeasureErrorKind::kInvalidSchedule,
                              absl::StrCat("the task's workload does not parse on this worker: ",
                                           workload.status().message()));
    return;
  }
  out.workload = *workload;
  out.source = measure::WorkloadSourceFromProto(task.workload());
  const std::string key = out.workload->dag->workload_key();
  if (key != task.workload_key()) {
    out.settled = ErrorResult(
        task.task_id(), MeasureErrorKind::kInvalidSchedule,
        absl::StrCat("workload key mismatch for '", out.workload->spec, "': the task says '",
                     task.workload_key(), "' but this worker computes '", key,
                     "'; run the same tuneforge version on the server and the worker"));
    return;
  }
  if (options_.runner_only) {
    TakeShippedKernels(task, out);
    return;
  }
  absl::StatusOr<schedule::Schedule> schedule = schedule::ScheduleFromProto(task.schedule());
  if (!schedule.ok()) {
    out.settled = ErrorResult(task.task_id(), MeasureErrorKind::kInvalidSchedule,
                              std::string(schedule.status().message()));
    return;
  }
  out.steps = std::move(schedule->steps);
  out.build_deadline_s = task.build_deadline_seconds();
  out.retime = !task.retime_of().empty();
}

void TaskExecutor::TakeShippedKernels(const v1::MeasureTask& task, Prepared& out) {
  auto missing = [&](const char* what, const char* field) {
    out.settled = ErrorResult(
        task.task_id(), MeasureErrorKind::kRunnerError,
        absl::StrCat("task ", task.task_id(), " came without a built ", what,
                     ": this worker is runner-only (it cannot compile), so the server must build "
                     "for its target and send the object in ",
                     field));
  };
  auto absent = [](const v1::BuiltKernel& k) { return k.object().empty() || k.symbol().empty(); };
  if (absent(task.candidate())) return missing("candidate", "MeasureTask.candidate");
  if (absent(task.reference()))
    return missing("reference (unscheduled program)", "MeasureTask.reference");
  out.candidate = Shipped(task.candidate(), *out.workload->dag);
  out.reference = std::make_shared<const measure::BuiltKernel>(
      Shipped(task.reference(), *out.workload->dag));
}

void TaskExecutor::BuildAll(std::vector<Prepared>& prepared, const std::function<bool()>& stop) {
  // One reference per workload not built before, then every candidate but
  // the re-timings of kernels built before: all in one parallel pass.
  absl::flat_hash_map<std::string, std::shared_ptr<const measure::BuiltKernel>> references;
  std::vector<measure::BuildRequest> requests;  // references not built before, then candidates
  std::vector<std::string> reference_keys;
  std::vector<size_t> to_time;     // every task not settled
  std::vector<size_t> candidates;  // those to build
  std::vector<std::string> workload_keys(prepared.size());  // by task, hashed once
  std::vector<std::string> kernel_keys(prepared.size());    // by re-timing task, hashed once
  // A final comparison times each leader twice in one lease: one build.
  absl::flat_hash_map<std::string, size_t> retime_builds;  // kernel key -> its position in candidates
  std::vector<std::pair<size_t, size_t>> same_builds;       // (task, position in candidates)
  for (size_t i = 0; i < prepared.size(); ++i) {
    Prepared& p = prepared[i];
    if (p.settled) continue;
    to_time.push_back(i);
    const std::string& key = workload_keys[i] = p.workload->dag->workload_key();
    const std::string& kernel_key = kernel_keys[i] = p.retime ? BuiltKernelCache::KeyOf(key, p.steps) : "";
    auto built = p.retime ? built_candidates_.Find(kernel_key) : nullptr;
    auto same = p.retime && !built ? retime_builds.find(kernel_key) : retime_builds.end();
    if (built) {
      p.candidate = *built;
      p.candidate.build_ms = 0;  // nothing was compiled for this task
    } else if (same != retime_builds.end()) {
      same_builds.emplace_back(i, same->second);
    } else {
      if (p.retime) retime_builds.emplace(kernel_key, candidates.size());
      candidates.push_back(i);
    }
    if (references.contains(key)) continue;
    auto cached = references_.find(key);
    references[key] = cached != references_.end() ? cached->second : nullptr;
    if (cached != references_.end()) continue;
    reference_keys.push_back(key);
    requests.push_back(measure::MakeBuildRequest(prepared[i].source, key, {}, host_));
  }
  const int num_references = static_cast<int>(reference_keys.size());
  std::vector<double> deadlines_s(requests.size(), 0);  // references: the worker's timeout
  for (size_t i : candidates) {
    requests.push_back(measure::MakeBuildRequest(prepared[i].source, workload_keys[i], prepared[i].steps, host_));
    deadlines_s.push_back(prepared[i].build_deadline_s);
  }
  std::vector<measure::BuiltKernel> built = builders_->Build(requests, stop, deadlines_s);
  for (int j = 0; j < num_references; ++j) {
    const std::string& key = reference_keys[j];
    auto kernel = std::make_shared<const measure::BuiltKernel>(std::move(built[j]));
    references[key] = kernel;
    // A reference that failed or was skipped is not kept: the next lease
    // tries again.
    if (!kernel->ok()) continue;
    if (references_.size() >= kMaxCachedReferences) references_.clear();
    references_[key] = kernel;
  }
  for (size_t c = 0; c < candidates.size(); ++c) {
    const size_t i = candidates[c];
    Prepared& p = prepared[i];
    p.candidate = std::move(built[num_references + static_cast<int>(c)]);
    built_candidates_.Add(p.retime ? kernel_keys[i] : BuiltKernelCache::KeyOf(workload_keys[i], p.steps),
                          p.candidate);
  }
  for (auto [task, position] : same_builds) {
    prepared[task].candidate = prepared[candidates[position]].candidate;
    prepared[task].candidate.build_ms = 0;
  }
  for (size_t i : to_time) prepared[i].reference = references.at(workload_keys[i]);
}

v1::MeasureResult TaskExecutor::Time(const v1::MeasureTask& task, const Prepared& prepared,
                                     measure::BehindBest behind) {
  if (prepared.settled) return *prepared.settled;
  absl::StatusOr<measure::Measurer*> measurer = measurers_.Get(task.measure());
  if (!measurer.ok())
    return ErrorResult(task.task_id(), MeasureErrorKind::kRunnerError,
                       absl::StrCat("cannot measure with the task's options: ",
                                    measurer.status().message()));
  measure::MeasureResult result =
      (*measurer)
          ->MeasureBuilt(*prepared.workload->dag, *prepared.reference, {prepared.candidate}, behind)
          .front();
  return measure::MeasureResultToProto(result, task.task_id());
}

}  // namespace tuneforge::worker
