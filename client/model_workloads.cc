#include "client/model_workloads.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "common/te/workload.h"

namespace tuneforge::cli {
namespace {

// A task as a job's workload: its library spec, or its definition named
// "resnet18.t7.softmax" (unique within the job, and says where it came from).
absl::StatusOr<ApiWorkload> TaskWorkload(const graph::Model& model, const graph::ModelTask& task, size_t index) {
  if (!task.spec.empty()) return ResolveApiWorkload(task.spec, "");
  std::string name = absl::StrCat(model.name, ".t", index, ".", task.name);
  auto parsed = te::ParseDefinition(task.definition, name);
  if (!parsed.ok())
    return absl::InternalError(absl::StrCat("task ", name, " does not read back: ", parsed.status().message()));
  ApiWorkload w;
  w.parsed = *std::move(parsed);
  w.message.set_definition(task.definition);
  w.message.set_name(name);
  return w;
}

// The other forms of the model's groups, one task per distinct kernel, each
// with 1 + the index of the task of the group's own form.
absl::Status AppendOtherForms(const graph::Model& model, ModelWorkloads* out) {
  std::map<std::string, int> task_of_key;
  for (size_t i = 0; i < model.tasks.size(); ++i) task_of_key[model.tasks[i].workload_key] = static_cast<int>(i);
  std::vector<graph::GroupKernel> others;
  std::vector<int> own_task;  // per kernel in `others`
  for (size_t g = 0; g < model.alternatives.size(); ++g) {
    if (!model.alternatives[g]) continue;
    others.push_back(*model.alternatives[g]);
    own_task.push_back(task_of_key.at(model.kernels[g].dag->workload_key()));
  }
  auto tasks = graph::DeduplicateTasks(others);
  if (!tasks.ok()) return tasks.status();
  if (tasks->empty()) return absl::OkStatus();
  out->form_of.assign(out->workloads.size(), 0);
  for (const graph::ModelTask& task : *tasks) {
    auto w = TaskWorkload(model, task, out->workloads.size());
    if (!w.ok()) return w.status();
    out->workloads.push_back(*std::move(w));
    out->weights.push_back(task.weight);
    // Identical other forms come from identical groups, so from one task.
    out->form_of.push_back(own_task[task.groups[0]] + 1);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ModelWorkloads> ResolveModelWorkloads(const std::string& path, const graph::ModelOptions& options,
                                                     bool other_forms) {
  auto model = graph::LoadModel(path, {}, options);
  if (!model.ok()) return model.status();
  ModelWorkloads out;
  out.model = std::make_shared<const graph::Model>(*std::move(model));
  for (size_t i = 0; i < out.model->tasks.size(); ++i) {
    auto w = TaskWorkload(*out.model, out.model->tasks[i], i);
    if (!w.ok()) return w.status();
    out.workloads.push_back(*std::move(w));
    out.weights.push_back(out.model->tasks[i].weight);
  }
  if (other_forms)
    if (absl::Status s = AppendOtherForms(*out.model, &out); !s.ok()) return s;
  return out;
}

}  // namespace tuneforge::cli
