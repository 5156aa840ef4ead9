// Round-robin: the tasks in turn, one share each, the turn kept across
// rounds (a round smaller than the task count starts where the last ended).
#pragma once

#include "search/task_scheduler/task_scheduler.h"

namespace tuneforge::search {

class RoundRobinScheduler : public TaskScheduler {
 public:
  size_t Next(const std::vector<TaskState>& tasks) override;
  std::string_view name() const override { return "round-robin"; }

 private:
  size_t next_ = 0;
};

}  // namespace tuneforge::search
