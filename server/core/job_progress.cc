#include "server/core/job_progress.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/schedule/schedule_json.h"
#include "server/core/retiming.h"

namespace tuneforge::server {
namespace {

int64_t NowUnixMs() { return absl::ToUnixMillis(absl::Now()); }

void Changed(JobRuntime* rt) {
  rt->dirty = true;
  ++rt->version;
}

}  // namespace

void FinishJob(JobRuntime* rt, JobState state, const std::string& message) {
  rt->job.state = state;
  rt->job.updated_unix_ms = NowUnixMs();
  rt->message = absl::StrCat(rt->ProgressLine(), ": ", message);
  // No correct record at all (a job of several workloads may have correct
  // records of a kernel that does no arithmetic, a transpose: 0 GFLOPS).
  if (state == JobState::kDone && rt->job.best_seconds <= 0) {
    rt->job.no_candidate_succeeded = true;
    absl::StrAppend(&rt->message, "; no candidate succeeded (", rt->job.errors, " of ", rt->job.trials_done,
                    " failed)");
  }
  Changed(rt);
}

void MarkRunning(JobRuntime* rt) {
  rt->job.state = JobState::kRunning;
  rt->job.updated_unix_ms = NowUnixMs();
  rt->message = absl::StrCat(rt->ProgressLine(), ": running");
  Changed(rt);
}

void SetBest(JobRuntime* rt, const Record& r) {
  rt->job.best_gflops = r.gflops;
  // Another form's FLOPs are not the task's (Winograd multiplies less): its
  // speed is told in the FLOPs of the task it computes, so forms compare.
  for (size_t i = 0; i < rt->workloads.size() && i < rt->job.spec.form_of.size(); ++i)
    if (rt->job.spec.form_of[i] > 0 && rt->workloads[i].dag->workload_key() == r.workload_key &&
        r.median_seconds > 0)
      rt->job.best_gflops = rt->workloads[rt->job.spec.form_of[i] - 1].dag->flops() / r.median_seconds / 1e9;
  rt->job.best_seconds = r.median_seconds;
  rt->job.best_schedule_json = r.schedule_json;
  rt->job.best_workload_key = r.workload_key;
}

void TakeTotals(JobRuntime* rt, const JobTotals& totals) {
  rt->job.errors = static_cast<int>(totals.errors);
  for (size_t i = 0; i < rt->job.tasks.size(); ++i) {
    TaskProgress& task = rt->job.tasks[i];
    auto it = totals.by_workload.find(task.workload_key);
    const WorkloadTotals workload = it == totals.by_workload.end() ? WorkloadTotals{} : it->second;
    task.trials = static_cast<int>(workload.trials);
    // The job goes on from earlier jobs' best (earlier_records.h).
    const double earlier = i < rt->earlier_best_seconds.size() ? rt->earlier_best_seconds[i] : 0;
    task.best_seconds = earlier > 0 && (workload.best_seconds <= 0 || earlier < workload.best_seconds)
                            ? earlier
                            : workload.best_seconds;
    if (i < rt->tasks.size()) rt->tasks[i].best_seconds = task.best_seconds;
  }
  if (totals.best) {
    SetBest(rt, *totals.best);
  } else {
    rt->job.best_gflops = 0;
    rt->job.best_seconds = 0;
    rt->job.best_schedule_json.clear();
    rt->job.best_workload_key.clear();
  }
  if (!rt->finished()) rt->message = rt->ProgressLine();  // an ended job keeps how it ended
  Changed(rt);
}

void AccountResult(JobRuntime* rt, const MeasuredResult& result) {
  const Record& r = result.record;
  if (rt->job.state == JobState::kQueued) MarkRunning(rt);
  if (result.is_retime()) {  // not a trial; the best is re-read (TakeTotals)
    ++rt->job.retimed;
    rt->job.measure_total.retime_seconds += (r.compile_ms + result.run_wall_ms) / 1e3;
    rt->dirty = true;
    return;
  }
  rt->job.measure_total.compile_seconds += r.compile_ms / 1e3;
  rt->job.measure_total.run_seconds += result.run_wall_ms / 1e3;
  ++rt->job.trials_done;
  if (!r.ok()) ++rt->job.errors;
  // The fastest correct record, as the store's totals pick it (TakeTotals):
  // for one workload the same as the most GFLOPS.
  if (r.ok() && r.median_seconds > 0 && (rt->job.best_seconds <= 0 || r.median_seconds < rt->job.best_seconds))
    SetBest(rt, r);
  for (size_t i = 0; i < rt->workloads.size(); ++i) {
    if (rt->workloads[i].dag->workload_key() != r.workload_key) continue;
    if (r.ok()) rt->compile_times[i].Add(r.compile_ms);
    absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(r.schedule_json);
    if (s.ok()) rt->feedback[i].push_back({s->steps, r.ok(), r.median_seconds, r.repeat_seconds});
    if (i < rt->job.tasks.size()) {  // the workload's progress as clients see it
      TaskProgress& task = rt->job.tasks[i];
      ++task.trials;
      if (r.ok() && (task.best_seconds == 0 || r.median_seconds < task.best_seconds))
        task.best_seconds = r.median_seconds;
    }
    break;
  }
  rt->job.updated_unix_ms = NowUnixMs();
  rt->message = rt->ProgressLine();
  Changed(rt);
  // With re-timing, done once its best is re-timed too (the next round).
  if (rt->job.trials_done >= rt->job.trials_total && RetimeTop(rt->job.spec) == 0)
    FinishJob(rt, JobState::kDone, "done");
}

void AddSearchCost(JobRuntime* rt, const SearchCost& round, bool proposed) {
  if (proposed) rt->job.search_last_round = round;
  rt->job.search_total += round;
  rt->dirty = true;
}

}  // namespace tuneforge::server
