// One round of a multi-task job: `want` new candidates shared among the
// tasks, share after share, by the job's task scheduler. Kept apart from the
// server so that how a round is divided can be tested with any scheduler.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "common/schedule/steps.h"
#include "search/task_scheduler/task_scheduler.h"

namespace tuneforge::search {

struct TaskCandidates {
  size_t task = 0;
  std::vector<std::vector<schedule::Step>> candidates;
};

// Asks task `task`'s search for up to `n` (>= 1) new candidates.
using ProposeForTask = std::function<std::vector<std::vector<schedule::Step>>(size_t task, int n)>;

// Shares a round of `want` candidates. Each share goes to the task the
// scheduler picks and is about an even part of what is still wanted; when
// the scheduler's next pick is the same task, that part joins the share
// (one search for both, not two of half the size); a task
// whose search has nothing new is `exhausted` for the rest of the round, so
// the next shares go to the others. Every task but an `untuned` one starts
// the round not exhausted: a search that found only known programs once (a share of one
// candidate, a cost model that ranks the measured ones first) may find new
// ones later, and a scheduler that never picks an exhausted task would
// otherwise starve it for the rest of the job. Each task's `trials` grows by
// what it was given. At most tasks.size() shares; nothing proposed means no
// task had anything new. No share is smaller than `min_share` (unless less
// is still wanted).
std::vector<TaskCandidates> ShareRound(TaskScheduler& scheduler, std::vector<TaskState>& tasks, int want,
                                       const ProposeForTask& propose, int min_share = 1);

// The smallest share worth an Ansor search: one search costs the same
// (2,048 programs evolved for 4 generations, each lowered for its features)
// for 2 candidates as for 64, so a round of 64 split among 27 tasks paid 27
// searches, and the search, not the measurement, set the pace of a model's
// tuning. TVM's task scheduler gives a whole round to one task; this keeps
// a few tasks per round.
constexpr int kMinShareForSearch = 16;

}  // namespace tuneforge::search
