// Deduplication: groups whose kernels have the same workload key are one
// tuning task, weighted by how many times the model runs it (Ansor's task
// weights). A task travels to the server as the library spec when there is
// one (shared with single-op jobs) or as the definition text of its DAG.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/partition/group_kernel.h"

namespace tuneforge::graph {

struct ModelTask {
  std::string workload_key;
  std::string name;        // the kernel's name: "conv2d+bias+relu", "softmax"
  std::string spec;        // library spec, or empty
  std::string definition;  // definition-language text when there is no spec
  int weight = 0;          // groups that run this kernel
  double flops = 0;        // of one run
  std::vector<int> groups;
};

// One task per distinct workload key, in order of first appearance.
absl::StatusOr<std::vector<ModelTask>> DeduplicateTasks(const std::vector<GroupKernel>& kernels);

}  // namespace tuneforge::graph
