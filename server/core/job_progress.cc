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

void FinishJob(JobRuntime* rt, v1::JobState state, const std::string& message) {
  rt->job.set_state(state);
  rt->job.set_updated_unix_ms(NowUnixMs());
  rt->message = absl::StrCat(rt->ProgressLine(), ": ", message);
  if (state == v1::JOB_STATE_DONE && rt->job.best_gflops() <= 0) {
    rt->job.set_no_candidate_succeeded(true);
    absl::StrAppend(&rt->message, "; no candidate succeeded (", rt->job.errors(), " of ",
                    rt->job.trials_done(), " failed)");
  }
  Changed(rt);
}

void MarkRunning(JobRuntime* rt) {
  rt->job.set_state(v1::JOB_STATE_RUNNING);
  rt->job.set_updated_unix_ms(NowUnixMs());
  rt->message = absl::StrCat(rt->ProgressLine(), ": running");
  Changed(rt);
}

void SetBest(JobRuntime* rt, const v1::Record& r) {
  rt->job.set_best_gflops(r.gflops());
  rt->job.set_best_seconds(r.median_seconds());
  rt->job.set_best_schedule_json(r.schedule_json());
  rt->job.set_best_workload_key(r.workload_key());
}

void TakeTotals(JobRuntime* rt, const JobTotals& totals) {
  rt->job.set_errors(static_cast<int32_t>(totals.errors));
  if (totals.best) {
    SetBest(rt, *totals.best);
  } else {
    rt->job.clear_best_gflops();
    rt->job.clear_best_seconds();
    rt->job.clear_best_schedule_json();
    rt->job.clear_best_workload_key();
  }
  rt->message = rt->ProgressLine();
  Changed(rt);
}

void AccountResult(JobRuntime* rt, const MeasuredResult& result) {
  const v1::Record& r = result.record;
  if (rt->job.state() == v1::JOB_STATE_QUEUED) MarkRunning(rt);
  if (result.is_retime()) {  // not a trial; the best is re-read (TakeTotals)
    rt->job.set_retimed(rt->job.retimed() + 1);
    return;
  }
  rt->job.set_trials_done(rt->job.trials_done() + 1);
  bool ok = r.error_kind() == "none";
  if (!ok) rt->job.set_errors(rt->job.errors() + 1);
  if (ok && r.gflops() > rt->job.best_gflops()) SetBest(rt, r);
  for (size_t i = 0; i < rt->workloads.size(); ++i) {
    if (rt->workloads[i].dag->workload_key() != r.workload_key()) continue;
    absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(r.schedule_json());
    if (s.ok()) rt->feedback[i].push_back({s->steps, ok, r.median_seconds()});
    break;
  }
  rt->job.set_updated_unix_ms(NowUnixMs());
  rt->message = rt->ProgressLine();
  Changed(rt);
  // With re-timing, done once its best is re-timed too (the next round).
  if (rt->job.trials_done() >= rt->job.trials_total() && RetimeTop(rt->job.spec()) == 0)
    FinishJob(rt, v1::JOB_STATE_DONE, "done");
}

void AddSearchCost(JobRuntime* rt, const v1::SearchCost& round, bool proposed) {
  if (proposed) *rt->job.mutable_search_last_round() = round;
  v1::SearchCost* total = rt->job.mutable_search_total();
  total->set_propose_seconds(total->propose_seconds() + round.propose_seconds());
  total->set_learn_seconds(total->learn_seconds() + round.learn_seconds());
  total->set_programs_scored(total->programs_scored() + round.programs_scored());
  rt->dirty = true;
}

}  // namespace tuneforge::server
