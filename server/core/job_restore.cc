#include "server/core/job_restore.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_json.h"
#include "server/core/job_progress.h"
#include "server/core/job_spec_check.h"

namespace tuneforge::server {
namespace {

// The sequence number of "job-...-t42".
int64_t TaskSeq(const std::string& task_id) {
  size_t t = task_id.rfind("-t");
  if (t == std::string::npos) return 0;
  return std::strtoll(task_id.c_str() + t + 2, nullptr, 10);
}

}  // namespace

absl::Status RestoreJob(RecordStore& store, JobSearch& search, Dispatcher& dispatcher, JobRuntime* rt) {
  absl::StatusOr<std::vector<te::Workload>> parsed = CheckJobSpec(rt->job.spec);
  if (!parsed.ok()) return parsed.status();
  rt->workloads = *std::move(parsed);
  absl::StatusOr<JobTotals> totals = store.Totals(rt->job.id);
  if (!totals.ok()) return totals.status();
  rt->job.trials_done = static_cast<int>(totals->trials);
  absl::StatusOr<std::vector<TaskRow>> pending = store.PendingTasks(rt->job.id);
  if (!pending.ok()) return pending.status();
  rt->issued = totals->trials;
  for (const TaskRow& t : *pending) {
    rt->issued += t.task.retime_of.empty() ? 1 : 0;
    // Its comparison goes on; the medians before it are gone with the
    // restart, so it is not issued again.
    if (t.task.compared_at_unix_ms != 0) rt->comparisons = std::max(rt->comparisons, 1);
  }
  rt->next_seq = rt->issued + static_cast<int64_t>(pending->size());
  for (const TaskRow& t : *pending) rt->next_seq = std::max(rt->next_seq, TaskSeq(t.task_id) + 1);
  // Measured ones are not proposed again (the search goes on from the
  // store's records), nor pending ones.
  std::vector<std::vector<std::string>> pending_schedules(rt->workloads.size());
  for (const TaskRow& t : *pending) {
    for (size_t i = 0; i < rt->workloads.size(); ++i)
      if (rt->workloads[i].dag->workload_key() == t.workload_key) {
        pending_schedules[i].push_back(schedule::ScheduleToJsonText(t.task.schedule, -1));
      }
  }
  if (absl::Status s = search.Start(rt, pending_schedules); !s.ok()) return s;
  TakeTotals(rt, *totals);  // errors, best, and each workload's trials and best
  rt->job.state = JobState::kQueued;  // until its workers register again
  rt->message = absl::StrCat("resumed after a restart at ", rt->job.trials_done, "/", rt->job.trials_total,
                             " trials");
  if (rt->job.trials_done >= rt->job.trials_total) {
    FinishJob(rt, JobState::kDone, "done");
  } else {
    dispatcher.EnqueueAfterRestart(*std::move(pending));
  }
  rt->dirty = true;
  return absl::OkStatus();
}

}  // namespace tuneforge::server
