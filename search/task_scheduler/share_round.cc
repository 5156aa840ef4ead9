#include "search/task_scheduler/share_round.h"

#include <algorithm>

namespace tuneforge::search {

std::vector<TaskCandidates> ShareRound(TaskScheduler& scheduler, std::vector<TaskState>& tasks, int want,
                                       const ProposeForTask& propose, int min_share) {
  std::vector<TaskCandidates> round;
  const int n = static_cast<int>(tasks.size());
  int open = 0;  // tasks that may get a share this round
  for (TaskState& t : tasks) {
    t.exhausted = t.untuned;
    open += !t.exhausted;
  }
  int proposed_total = 0;
  // A scheduler may pick a task that cannot go on (round-robin gives every
  // task its turn): that pick passes, and at most 2n picks are asked for.
  for (int picks = 0, shares = 0; proposed_total < want && shares < open && picks < 2 * n; ++picks) {
    const size_t task = scheduler.Next(tasks);
    if (task >= tasks.size()) break;
    if (tasks[task].exhausted) continue;
    // An even part of what is still wanted over the shares still to come.
    const int even = (want - proposed_total + open - shares - 1) / (open - shares);
    const int share = std::min(want - proposed_total, std::max({1, min_share, even}));
    ++shares;
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
