// Which program a task runs: its tuned schedule from the lookup when one
// replays and lowers, else the unscheduled program (and why, in the
// kernel's info). The executor and the compiled-library export share it.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/lower/stmt.h"
#include "graph/executor/compiled_model.h"
#include "graph/partition/group_kernel.h"

namespace tuneforge::graph {

// The lowered kernel named `symbol`. `info->workload_key` names the task;
// sets info->tuned and info->fallback_reason.
absl::StatusOr<lower::LoweredFunc> ChooseProgram(const GroupKernel& kernel, const ScheduleLookup& lookup,
                                                 const std::string& symbol, KernelInfo* info);

}  // namespace tuneforge::graph
