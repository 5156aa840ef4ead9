// `--model F.onnx` for submit and tune: the model's tasks as the job's
// workloads (a library spec, or a definition's text named after the model
// and the kernel), with the task weights.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/workload_arg.h"
#include "graph/model/model.h"

namespace tuneforge::cli {

struct ModelWorkloads {
  std::shared_ptr<const graph::Model> model;
  std::vector<ApiWorkload> workloads;  // one per task, in task order; then the other forms
  std::vector<double> weights;
  // Per workload: 0, or 1 + the index of the task it is another form of
  // (JobSpec.form_of); empty when the other forms were not asked for.
  std::vector<int> form_of;
};

// With `other_forms`, the tasks' other forms (a 3x3 conv's Winograd form:
// graph::Model::alternatives) follow the tasks as workloads of their own,
// deduplicated and weighted like tasks, so one job tunes both forms of
// every such conv (--conv-algorithm auto).
// Errors: the import's (a malformed file, an unsupported op, a dynamic
// shape), prefixed with the path.
absl::StatusOr<ModelWorkloads> ResolveModelWorkloads(const std::string& path,
                                                     const graph::ModelOptions& options = {},
                                                     bool other_forms = false);

}  // namespace tuneforge::cli
