// A model ready to tune or run: the imported graph after the passes, its
// fused groups with their kernels, and the deduplicated tuning tasks.
//
//   ImportOnnxFile -> RunGraphPasses -> FuseGraph -> BuildGroupKernel (each
//   group) -> DeduplicateTasks
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir/graph.h"
#include "graph/onnx/import.h"
#include "graph/partition/fuse.h"
#include "graph/partition/group_kernel.h"
#include "graph/partition/tasks.h"
#include "graph/passes/pipeline.h"

namespace tuneforge::graph {

struct Model {
  std::string name;  // the file's stem
  Graph graph;
  PassReport passes;
  std::vector<Group> groups;
  std::vector<GroupKernel> kernels;  // one per group
  std::vector<ModelTask> tasks;
};

absl::StatusOr<Model> LoadModel(const std::string& onnx_path, const ImportOptions& options = {});
// The same from an imported graph (tests build graphs directly).
absl::StatusOr<Model> BuildModel(Graph graph, std::string name);

}  // namespace tuneforge::graph
