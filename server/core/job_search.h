// The search side of a running job: its policies (one per workload), the
// task scheduler that shares a round among the workloads, and what one
// round is (learn from the last results, re-time the fastest, propose new
// candidates as persisted-to-be tasks). Only the search thread calls Next,
// outside the job manager's lock: learning and proposing take seconds.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "search/task_scheduler/task_scheduler.h"
#include "server/core/cost_models.h"
#include "server/core/job_runtime.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

struct PlannedRound {
  // Re-timings first, then new candidates; once the trials are all issued
  // and nothing is left to re-time, the final comparison's re-timings.
  std::vector<TaskRow> tasks;
  size_t retimes = 0;
  SearchCost cost;
};

class JobSearch {
 public:
  JobSearch(RecordStore* store, CostModels* cost_models, search::TaskSchedulerKind scheduler,
            absl::Duration compare_again_after)
      : store_(store),
        cost_models_(cost_models),
        scheduler_(scheduler),
        compare_again_after_(compare_again_after) {}

  // Policies and scheduler for a running job, going on from the store's
  // records of its workloads (earlier_records.h); `pending` (per workload,
  // a restored job's) are schedule texts sent out and not yet measured,
  // never proposed again either.
  absl::Status Start(JobRuntime* rt, const std::vector<std::vector<std::string>>& pending = {});
  // The next round: `feedback` per workload goes to the policies, then up to
  // `want` new candidates are proposed.
  PlannedRound Next(JobRuntime* rt, std::vector<std::vector<search::MeasuredCandidate>> feedback, int want);

 private:
  // Re-timings of the job's fastest programs timed once (reads the store).
  std::vector<TaskRow> RetimeTasks(JobRuntime* rt);
  // A task timing `record`'s program again, in full; none when its
  // schedule no longer parses.
  std::optional<TaskRow> RetimeTask(JobRuntime* rt, int w, const Record& record);
  // The final comparison (retiming.h), once per job, and again while it
  // ran at a busy moment (up to kMaxComparisons), each time after a pause
  // (none yet while JobRuntime::compare_again_at is set).
  std::vector<TaskRow> ComparisonTasks(JobRuntime* rt);
  // `cost` counts the programs the policies' cost models scored.
  std::vector<TaskRow> ProposeTasks(JobRuntime* rt, int want, SearchCost* cost);
  TaskRow MakeTask(JobRuntime* rt, int w, std::vector<schedule::Step> steps);

  RecordStore* store_;
  CostModels* cost_models_;
  search::TaskSchedulerKind scheduler_;
  absl::Duration compare_again_after_;
};

}  // namespace tuneforge::server
