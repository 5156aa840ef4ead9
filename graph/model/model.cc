#include "graph/model/model.h"

#include <filesystem>


namespace tuneforge::graph {

absl::StatusOr<Model> BuildModel(Graph graph, std::string name) {
  Model model;
  model.name = std::move(name);
  auto report = RunGraphPasses(graph);
  if (!report.ok()) return report.status();
  model.passes = *report;
  model.graph = std::move(graph);
  model.groups = FuseGraph(model.graph);
  for (const Group& group : model.groups) {
    auto kernel = BuildGroupKernel(model.graph, group);
    if (!kernel.ok()) return kernel.status();
    model.kernels.push_back(*std::move(kernel));
  }
  auto tasks = DeduplicateTasks(model.kernels);
  if (!tasks.ok()) return tasks.status();
  model.tasks = *std::move(tasks);
  return model;
}

absl::StatusOr<Model> LoadModel(const std::string& onnx_path, const ImportOptions& options) {
  auto graph = ImportOnnxFile(onnx_path, options);
  if (!graph.ok()) return graph.status();
  return BuildModel(*std::move(graph), std::filesystem::path(onnx_path).stem().string());
}

}  // namespace tuneforge::graph
