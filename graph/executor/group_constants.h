// A group's packed constants (layout rewrite): its kernel's prepack function
// run on the group's own weights. Groups that share a task share the kernel
// but not the weights, so the executor and the library export pack per group.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/packed_constants.h"
#include "graph/executor/memory_plan.h"
#include "graph/ir/graph.h"

namespace tuneforge::graph {

// `args` are the group's kernel arguments (GroupKernel::args); the prepack
// function reads only the constant ones, so the others are passed as null.
absl::StatusOr<codegen::PackedConstants> PackGroupConstants(const codegen::LoadedKernel& kernel,
                                                            const std::vector<codegen::PackedArg>& packed,
                                                            const Graph& graph, const MemoryPlan& plan,
                                                            const std::vector<ValueId>& args);

}  // namespace tuneforge::graph
