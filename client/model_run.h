// Running a whole model the way `tuneforge run` reports it: the best kernels
// from a record source (an untuned task runs its unscheduled program), the
// outputs checked against the model's ONNX test data when its folder has
// some (test_data_set_*/input_*.pb, output_*.pb) and otherwise against the
// unscheduled reference on random inputs, and the latency as the median of
// repeated runs. Used by `run` and by `tune --model` after tuning.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/record_source.h"
#include "graph/executor/compiled_model.h"
#include "graph/model/model.h"

namespace tuneforge::cli {

struct ModelRunOptions {
  int runs = 20;  // timed runs (after one warm-up); the median is reported
  uint64_t seed = 1;
};

struct ModelRunReport {
  double latency_ms = 0;
  int tasks = 0;
  int untuned_tasks = 0;
  std::vector<graph::KernelInfo> kernels;
  // Per task, as kernels: the median over the timed runs of the time its
  // kernels took in one model run (all its calls together), a profile that
  // says where the latency goes.
  std::vector<double> task_ms;
  bool outputs_checked = false;  // true only when every output matched
  double max_abs_error = 0;
  std::string checked_against;   // "test data (2 sets)" or "the unscheduled reference ..."
  std::string mismatch;          // the first output that did not match, or ""
  int64_t arena_bytes = 0;
};

// The best schedule of each workload key on `device_key` from `source`
// (a key with no record, or a record that does not parse, is untuned).
graph::ScheduleLookup LookupFrom(RecordSource& source, const std::string& device_key);

// The records `run` and `compile` use: --db / --server, or the default
// database. No default database yet (nothing tuned here) is no error: the
// lookup is empty and every task untuned.
struct ModelRecords {
  std::unique_ptr<RecordSource> source;
  std::string description;  // "tuneforge.db", "server ...", or "no record database"
  graph::ScheduleLookup lookup;
};
absl::StatusOr<ModelRecords> OpenModelRecords(const RecordSourceArgs& args, const std::string& device_key);

absl::StatusOr<ModelRunReport> RunModel(const graph::Model& model, const std::string& model_path,
                                        const graph::ScheduleLookup& lookup,
                                        const ModelRunOptions& options);

}  // namespace tuneforge::cli
