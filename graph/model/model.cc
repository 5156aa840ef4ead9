#include "graph/model/model.h"

#include <filesystem>


namespace tuneforge::graph {

absl::StatusOr<Model> BuildModel(Graph graph, std::string name, const ModelOptions& options) {
  Model model;
  model.name = std::move(name);
  auto report = RunGraphPasses(graph);
  if (!report.ok()) return report.status();
  model.passes = *report;
  model.graph = std::move(graph);
  model.groups = FuseGraph(model.graph);
  const ConvAlgorithm other =
      options.conv == ConvAlgorithm::kDirect ? ConvAlgorithm::kWinograd : ConvAlgorithm::kDirect;
  for (const Group& group : model.groups) {
    auto kernel = BuildGroupKernel(model.graph, group, options.conv);
    if (!kernel.ok()) return kernel.status();
    auto alternative = BuildGroupKernel(model.graph, group, other);
    if (alternative.ok() && alternative->dag->workload_key() != kernel->dag->workload_key())
      model.alternatives.push_back(*std::move(alternative));
    else
      model.alternatives.push_back(std::nullopt);
    model.kernels.push_back(*std::move(kernel));
  }
  auto tasks = DeduplicateTasks(model.kernels);
  if (!tasks.ok()) return tasks.status();
  model.tasks = *std::move(tasks);
  return model;
}

absl::StatusOr<Model> LoadModel(const std::string& onnx_path, const ImportOptions& options,
                                const ModelOptions& model_options) {
  auto graph = ImportOnnxFile(onnx_path, options);
  if (!graph.ok()) return graph.status();
  // The backend tests' layout is DIR/model.onnx: the folder names the model.
  std::filesystem::path path(onnx_path);
  std::string name = path.stem().string();
  if (name == "model" && path.has_parent_path()) name = path.parent_path().filename().string();
  return BuildModel(*std::move(graph), name, model_options);
}

}  // namespace tuneforge::graph
