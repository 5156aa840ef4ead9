#include "graph/partition/tasks.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/te/definition/printer.h"

namespace tuneforge::graph {

absl::StatusOr<std::vector<ModelTask>> DeduplicateTasks(const std::vector<GroupKernel>& kernels) {
  std::vector<ModelTask> tasks;
  absl::flat_hash_map<std::string, size_t> by_key;
  for (size_t g = 0; g < kernels.size(); ++g) {
    const GroupKernel& k = kernels[g];
    std::string key = k.dag->workload_key();
    auto [it, inserted] = by_key.emplace(key, tasks.size());
    if (inserted) {
      ModelTask task;
      task.workload_key = key;
      task.name = k.name;
      task.spec = k.spec;
      task.flops = k.dag->flops();
      if (task.spec.empty()) {
        auto text = te::definition::PrintDefinition(*k.dag);
        if (!text.ok())
          return absl::Status(text.status().code(),
                              absl::StrCat("kernel '", k.name, "': ", text.status().message()));
        task.definition = *std::move(text);
      }
      tasks.push_back(std::move(task));
    }
    ModelTask& task = tasks[it->second];
    ++task.weight;
    task.groups.push_back(static_cast<int>(g));
  }
  return tasks;
}

}  // namespace tuneforge::graph
