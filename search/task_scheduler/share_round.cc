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
  // The scheduler's pick after a part of the round is asked for before that
  // part's search runs: while it is the same task, the share grows by the
  // next part instead (one search for both; a search costs the same for 16
  // candidates as for 64). A different pick gets the next share.
  bool has_pending = false;
  size_t pending = 0;
  // A scheduler may pick a task that cannot go on (round-robin gives every
  // task its turn): that pick passes, and at most 2n picks are asked for.
  for (int picks = 0, parts = 0; proposed_total < want && parts < open && picks < 2 * n; ++picks) {
    const size_t task = has_pending ? pending : scheduler.Next(tasks);
    has_pending = false;
    if (task >= tasks.size()) break;
    if (tasks[task].exhausted) continue;
    const int64_t trials_before = tasks[task].trials;
    int share = 0, merged = 0;
    for (;;) {
      // An even part of what is still wanted over the parts still to come.
      const int left = want - proposed_total - share;
      const int even = (left + open - parts - merged - 1) / (open - parts - merged);
      share += std::min(left, std::max({1, min_share, even}));
      ++merged;
      tasks[task].trials = trials_before + share;  // what the scheduler's next pick sees
      if (proposed_total + share >= want || parts + merged >= open || picks + 1 >= 2 * n) break;
      ++picks;
      const size_t next = scheduler.Next(tasks);
      if (next != task) {
        has_pending = true;
        pending = next;
        break;
      }
    }
    tasks[task].trials = trials_before;  // counted below as proposed
    std::vector<std::vector<schedule::Step>> candidates = propose(task, share);
    if (static_cast<int>(candidates.size()) > want - proposed_total) candidates.resize(want - proposed_total);
    // A search with less new than its share leaves the parts it could not
    // fill to the shares after it.
    parts += static_cast<int>(candidates.size()) < share ? 1 : merged;
    tasks[task].exhausted = candidates.empty();
    if (candidates.empty()) continue;
    tasks[task].trials += static_cast<int64_t>(candidates.size());
    proposed_total += static_cast<int>(candidates.size());
    round.push_back({task, std::move(candidates)});
  }
  return round;
}

}  // namespace tuneforge::search
