#include "client/model_workloads.h"

#include "absl/strings/str_cat.h"
#include "common/te/workload.h"

namespace tuneforge::cli {

absl::StatusOr<ModelWorkloads> ResolveModelWorkloads(const std::string& path, const graph::ModelOptions& options) {
  auto model = graph::LoadModel(path, {}, options);
  if (!model.ok()) return model.status();
  ModelWorkloads out;
  out.model = std::make_shared<const graph::Model>(*std::move(model));
  for (size_t i = 0; i < out.model->tasks.size(); ++i) {
    const graph::ModelTask& task = out.model->tasks[i];
    if (!task.spec.empty()) {
      auto w = ResolveApiWorkload(task.spec, "");
      if (!w.ok()) return w.status();
      out.workloads.push_back(*std::move(w));
    } else {
      // "resnet18.t7.softmax": unique within the job, and says where it came from.
      std::string name = absl::StrCat(out.model->name, ".t", i, ".", task.name);
      auto parsed = te::ParseDefinition(task.definition, name);
      if (!parsed.ok())
        return absl::InternalError(absl::StrCat("task ", name, " does not read back: ", parsed.status().message()));
      ApiWorkload w;
      w.parsed = *std::move(parsed);
      w.message.set_definition(task.definition);
      w.message.set_name(name);
      out.workloads.push_back(std::move(w));
    }
    out.weights.push_back(task.weight);
  }
  return out;
}

}  // namespace tuneforge::cli
