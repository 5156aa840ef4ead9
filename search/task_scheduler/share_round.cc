#include "search/task_scheduler/share_round.h"

#include <algorithm>

namespace tuneforge::search {

std::vector<TaskCandidates> ShareRound(TaskScheduler& scheduler, std::vector<TaskState>& tasks, int want,
                                       const ProposeForTask& propose, int min_share) {
  std::vector<TaskCandidates> round;
  const int n = static_cast<int>(tasks.size());
  for (TaskState& t : tasks) t.exhausted = false;
  int proposed_total = 0;
  for (int tries = 0; proposed_total < want && tries < n; ++tries) {
    const size_t task = scheduler.Next(tasks);
    if (task >= tasks.size() || tasks[task].exhausted) break;  // nothing left that can go on
    // An even part of what is still wanted over the shares still to come.
    const int even = (want - proposed_total + n - 1 - tries) / (n - tries);
    const int share = std::min(want - proposed_total, std::max({1, min_share, even}));
    std::vector<std::vector<schedule::Step>> candidates = propose(task, share);
    if (static_cast<int>(candidates.size()) > want - proposed_total) candidates.resize(want - proposed_total);
    tasks[task].exhausted = candidates.empty();
    if (candidates.empty()) continue;
    tasks[task].trials += static_cast<int64_t>(candidates.size());
    proposed_total += static_cast<int>(candidates.size());
    round.push_back({task, std::move(candidates)});
  }
  return round;
}

}  // namespace tuneforge::search
