// A model compiled for this machine: one JIT-compiled kernel per fused group
// (the best schedule from the record store where there is one, the
// unscheduled program otherwise), the static memory plan, and a run that
// allocates nothing: inputs are read where the caller keeps them, every
// intermediate lives in the planned arena, outputs are copied out.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/compiler.h"
#include "common/codegen/packed_constants.h"
#include "common/schedule/steps.h"
#include "common/te/ndarray.h"
#include "graph/executor/memory_plan.h"
#include "graph/model/model.h"

namespace tuneforge::graph {

// A workload key's best record: its steps and how long the program ran.
struct TunedSchedule {
  std::vector<schedule::Step> steps;
  double seconds = 0;
};
// The best record of a workload key, or nullopt when it has none.
using ScheduleLookup = std::function<std::optional<TunedSchedule>(const std::string& workload_key)>;

struct KernelInfo {
  std::string name;
  std::string workload_key;
  bool tuned = false;
  std::string fallback_reason;  // a stored schedule that did not replay or compile
  std::string spec;             // the library spec of the form that runs, or empty
};

class CompiledModel {
 public:
  // `lookup` may be null: every kernel unscheduled (the reference).
  static absl::StatusOr<std::unique_ptr<CompiledModel>> Compile(const Model& model,
                                                                const ScheduleLookup& lookup);

  // Inputs in the graph's input order, with their values' dtypes and
  // element counts; returns the outputs in the graph's output order.
  absl::StatusOr<std::vector<te::NDArray>> Run(const std::vector<te::NDArray>& inputs);
  // The same into outputs the caller allocated (no allocation at all).
  // `task_seconds` (optional, one slot per task, as kernels()): each
  // kernel call's wall time is added to its task's slot, for a profile.
  absl::Status RunInto(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
                       std::vector<double>* task_seconds = nullptr);

  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  const MemoryPlan& memory_plan() const { return plan_; }
  const Graph& graph() const { return graph_; }

 private:
  CompiledModel() = default;
  void* Resolve(ValueId v, const std::vector<const void*>& inputs);

  Graph graph_;
  std::vector<Group> groups_;
  std::vector<std::vector<ValueId>> args_;
  std::vector<std::unique_ptr<codegen::LoadedKernel>> loaded_;  // per task
  std::vector<codegen::PackedConstants> packed_;                // per group (layout rewrite)
  std::vector<int> kernel_of_group_;                            // index into loaded_
  std::vector<KernelInfo> kernels_;                             // per task
  MemoryPlan plan_;
  std::unique_ptr<uint8_t[], void (*)(uint8_t*)> arena_{nullptr, nullptr};
  std::vector<void*> scratch_args_;
};

}  // namespace tuneforge::graph
