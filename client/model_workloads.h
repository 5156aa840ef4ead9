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
  std::vector<ApiWorkload> workloads;  // one per task, in task order
  std::vector<double> weights;
};

// Errors: the import's (a malformed file, an unsupported op, a dynamic
// shape), prefixed with the path.
absl::StatusOr<ModelWorkloads> ResolveModelWorkloads(const std::string& path,
                                                     const graph::ModelOptions& options = {});

}  // namespace tuneforge::cli
