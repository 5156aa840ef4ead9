#include "search/task_scheduler/round_robin.h"

namespace tuneforge::search {

size_t RoundRobinScheduler::Next(const std::vector<TaskState>& tasks) {
  if (tasks.empty()) return 0;
  size_t pick = next_ % tasks.size();
  next_ = (pick + 1) % tasks.size();
  return pick;
}

}  // namespace tuneforge::search
