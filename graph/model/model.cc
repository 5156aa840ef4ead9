#include "graph/model/model.h"

#include <filesystem>
#include <optional>
#include <variant>


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
    // Only a conv has another form; building every group twice would
    // double the model's build for nothing.
    std::optional<GroupKernel> alternative;
    if (std::holds_alternative<Conv>(model.graph.nodes[group.nodes[0]].op))
      if (auto other_form = BuildGroupKernel(model.graph, group, other);
          other_form.ok() && other_form->dag->workload_key() != kernel->dag->workload_key())
        alternative = *std::move(other_form);
    model.alternatives.push_back(std::move(alternative));
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
