// A model ready to tune or run: the imported graph after the passes, its
// fused groups with their kernels, and the deduplicated tuning tasks.
//
//   ImportOnnxFile -> RunGraphPasses -> FuseGraph -> BuildGroupKernel (each
//   group, in the options' form and in the other where it differs)
//   -> DeduplicateTasks
#pragma once

#include <optional>
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

struct ModelOptions {
  // The form the tasks of 3x3 stride-1 convolutions tune (group_kernel.h).
  ConvAlgorithm conv = ConvAlgorithm::kDirect;
};

struct Model {
  std::string name;  // the file's stem
  Graph graph;
  PassReport passes;
  std::vector<Group> groups;
  std::vector<GroupKernel> kernels;  // one per group: the form its task tunes
  // Per group, the other form of the same computation where there is one
  // (the other convolution algorithm), with the same arguments: the
  // executor runs whichever of the two has the faster record.
  std::vector<std::optional<GroupKernel>> alternatives;
  std::vector<ModelTask> tasks;
};

absl::StatusOr<Model> LoadModel(const std::string& onnx_path, const ImportOptions& options = {},
                                const ModelOptions& model_options = {});
// The same from an imported graph (tests build graphs directly).
absl::StatusOr<Model> BuildModel(Graph graph, std::string name, const ModelOptions& options = {});

}  // namespace tuneforge::graph
