#include "graph/executor/kernel_choice.h"

#include "common/codegen/target.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"

namespace tuneforge::graph {

absl::StatusOr<Model> WithFasterForms(const Model& model, const ScheduleLookup& lookup) {
  if (!lookup) return model;
  Model chosen = model;
  bool swapped = false;
  for (const ModelTask& task : model.tasks) {
    bool all_have_one = true;
    for (int g : task.groups) all_have_one = all_have_one && model.alternatives[g].has_value();
    if (!all_have_one) continue;
    const std::optional<TunedSchedule> own = lookup(task.workload_key);
    const std::optional<TunedSchedule> other = lookup(model.alternatives[task.groups.front()]->dag->workload_key());
    if (!other || (own && own->seconds <= other->seconds)) continue;
    for (int g : task.groups) std::swap(chosen.kernels[g], *chosen.alternatives[g]);
    swapped = true;
  }
  if (!swapped) return chosen;
  auto tasks = DeduplicateTasks(chosen.kernels);
  if (!tasks.ok()) return tasks.status();
  chosen.tasks = *std::move(tasks);
  return chosen;
}

absl::StatusOr<lower::LoweredFunc> ChooseProgram(const GroupKernel& kernel, const ScheduleLookup& lookup,
                                                 const std::string& symbol, KernelInfo* info) {
  lower::LowerOptions options;
  options.name = symbol;
  options.register_lanes = codegen::Target::Host().vector_lanes(4);  // built for this machine
  if (lookup) {
    if (std::optional<TunedSchedule> tuned = lookup(info->workload_key)) {
      // A stored schedule must replay and lower here (a record of another
      // build may not).
      auto state = schedule::State::Replay(kernel.dag, tuned->steps);
      absl::StatusOr<lower::LoweredFunc> func =
          state.ok() ? lower::Lower(*state, options) : absl::StatusOr<lower::LoweredFunc>(state.status());
      if (func.ok()) {
        info->tuned = true;
        return func;
      }
      info->fallback_reason = std::string(func.status().message());
    }
  }
  return lower::Lower(schedule::State(kernel.dag), options);
}

}  // namespace tuneforge::graph
