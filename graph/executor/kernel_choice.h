// Which program a task runs: the faster of its forms (a direct or a
// Winograd convolution), then its tuned schedule from the lookup when one
// replays and lowers, else the unscheduled program (and why, in the
// kernel's info). The executor and the compiled-library export share it.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/lower/stmt.h"
#include "graph/executor/compiled_model.h"
#include "graph/partition/group_kernel.h"

namespace tuneforge::graph {

// The model with each task in its faster form: a task whose groups have
// another form (Model::alternatives) runs that one instead where its record
// is faster than the task's own, or where only it has a record. The tasks
// are those of the forms chosen.
absl::StatusOr<Model> WithFasterForms(const Model& model, const ScheduleLookup& lookup);

// The lowered kernel named `symbol`. `info->workload_key` names the task;
// sets info->tuned and info->fallback_reason.
absl::StatusOr<lower::LoweredFunc> ChooseProgram(const GroupKernel& kernel, const ScheduleLookup& lookup,
                                                 const std::string& symbol, KernelInfo* info);

}  // namespace tuneforge::graph
