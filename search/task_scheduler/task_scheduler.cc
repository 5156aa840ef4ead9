#include "search/task_scheduler/task_scheduler.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "search/task_scheduler/gradient.h"
#include "search/task_scheduler/round_robin.h"

namespace tuneforge::search {

std::unique_ptr<TaskScheduler> MakeTaskScheduler(TaskSchedulerKind kind, uint64_t seed) {
  switch (kind) {
    case TaskSchedulerKind::kRoundRobin: return std::make_unique<RoundRobinScheduler>();
    case TaskSchedulerKind::kGradient: {
      GradientSchedulerOptions options;
      options.seed = seed;
      return std::make_unique<GradientScheduler>(options);
    }
  }
  return std::make_unique<RoundRobinScheduler>();
}

absl::StatusOr<TaskSchedulerKind> ParseTaskScheduler(std::string_view name) {
  if (name.empty() || name == "round-robin") return TaskSchedulerKind::kRoundRobin;
  if (name == "gradient") return TaskSchedulerKind::kGradient;
  return absl::InvalidArgumentError(
      absl::StrCat("task scheduler: unknown '", std::string(name), "'; known: round-robin, gradient"));
}

std::string SimilarityGroup(std::string_view op, double flops, double outputs) {
  if (op.empty()) return "";
  auto scale = [](double x, double base) { return static_cast<int>(std::log(std::max(x, 0.0) + 1) / std::log(base)); };
  return absl::StrCat(std::string(op), "/", scale(flops, 1.618), "/", scale(flops / std::max(outputs, 1.0), 4));
}

double EstimatedLatencySeconds(const std::vector<TaskState>& tasks) {
  double total = 0;
  for (const TaskState& t : tasks)
    if (t.best_seconds > 0) total += t.weight * t.best_seconds;
  return total;
}

}  // namespace tuneforge::search
