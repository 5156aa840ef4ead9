#include "search/task_scheduler/task_scheduler.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "search/task_scheduler/round_robin.h"

namespace tuneforge::search {

std::unique_ptr<TaskScheduler> MakeTaskScheduler(TaskSchedulerKind kind) {
  switch (kind) {
    case TaskSchedulerKind::kRoundRobin: return std::make_unique<RoundRobinScheduler>();
  }
  return std::make_unique<RoundRobinScheduler>();
}

absl::StatusOr<TaskSchedulerKind> ParseTaskScheduler(std::string_view name) {
  if (name.empty() || name == "round-robin") return TaskSchedulerKind::kRoundRobin;
  return absl::InvalidArgumentError(
      absl::StrCat("task scheduler: unknown '", std::string(name), "'; known: round-robin"));
}

}  // namespace tuneforge::search
