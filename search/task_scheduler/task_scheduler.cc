#include "search/task_scheduler/task_scheduler.h"

#include <algorithm>
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

size_t PrimaryOf(const std::vector<TaskState>& tasks, size_t i) {
  const int of = tasks[i].form_of;
  return of >= 0 && static_cast<size_t>(of) < tasks.size() ? static_cast<size_t>(of) : i;
}

double FastestFormSeconds(const std::vector<TaskState>& tasks, size_t i) {
  const size_t primary = PrimaryOf(tasks, i);
  double fastest = 0;
  for (size_t k = 0; k < tasks.size(); ++k)
    if (PrimaryOf(tasks, k) == primary && tasks[k].best_seconds > 0 &&
        (fastest <= 0 || tasks[k].best_seconds < fastest))
      fastest = tasks[k].best_seconds;
  return fastest;
}

double FastestFormRate(const std::vector<TaskState>& tasks, size_t i) {
  const size_t primary = PrimaryOf(tasks, i);
  double rate = 0;
  int forms = 0;
  for (size_t k = 0; k < tasks.size(); ++k) {
    if (PrimaryOf(tasks, k) != primary) continue;
    ++forms;
    if (tasks[k].best_seconds > 0 && tasks[k].flops > 0) rate = std::max(rate, tasks[k].flops / tasks[k].best_seconds);
  }
  return forms > 1 ? rate : 0;
}

double EstimatedLatencySeconds(const std::vector<TaskState>& tasks) {
  double total = 0;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (PrimaryOf(tasks, i) == i) total += tasks[i].weight * FastestFormSeconds(tasks, i);
  return total;
}

}  // namespace tuneforge::search
