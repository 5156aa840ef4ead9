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
// scheduler picks and is about an even part of what is still wanted; a task
// whose search has nothing new is `exhausted` for the rest of the round, so
// the next shares go to the others. Every task starts the round not
// exhausted: a search that found only known programs once (a share of one
// candidate, a cost model that ranks the measured ones first) may find new
// ones later, and a scheduler that never picks an exhausted task would
// otherwise starve it for the rest of the job. Each task's `trials` grows by
// what it was given. At most tasks.size() shares; nothing proposed means no
// task had anything new.
std::vector<TaskCandidates> ShareRound(TaskScheduler& scheduler, std::vector<TaskState>& tasks, int want,
                                       const ProposeForTask& propose);

}  // namespace tuneforge::search
