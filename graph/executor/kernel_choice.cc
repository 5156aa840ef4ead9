#include "graph/executor/kernel_choice.h"

#include "common/lower/lower.h"
#include "common/schedule/state.h"

namespace tuneforge::graph {

absl::StatusOr<lower::LoweredFunc> ChooseProgram(const GroupKernel& kernel, const ScheduleLookup& lookup,
                                                 const std::string& symbol, KernelInfo* info) {
  lower::LowerOptions options;
  options.name = symbol;
  if (lookup) {
    if (std::optional<std::vector<schedule::Step>> steps = lookup(info->workload_key)) {
      // A stored schedule must replay and lower here (a record of another
      // build may not).
      auto state = schedule::State::Replay(kernel.dag, *steps);
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
