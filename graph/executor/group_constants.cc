#include "graph/executor/group_constants.h"

namespace tuneforge::graph {

absl::StatusOr<codegen::PackedConstants> PackGroupConstants(const codegen::LoadedKernel& kernel,
                                                            const std::vector<codegen::PackedArg>& packed,
                                                            const Graph& graph, const MemoryPlan& plan,
                                                            const std::vector<ValueId>& args) {
  std::vector<void*> pointers;
  for (ValueId v : args)
    pointers.push_back(plan.storage[v].kind == Storage::Kind::kConstant
                           ? const_cast<void*>(graph.values[plan.root[v]].constant->data())
                           : nullptr);
  return codegen::PackedConstants::Prepare(kernel, packed, pointers);
}

}  // namespace tuneforge::graph
