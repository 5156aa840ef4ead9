#include "server/core/job_spec_check.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "search/search_policy.h"
#include "search/mutation_choice/mutation_choice.h"
#include "search/sketch_selection/sketch_selection.h"
#include "search/task_scheduler/task_scheduler.h"
#include "server/core/retiming.h"
#include "server/core/workload_cache.h"

namespace tuneforge::server {
namespace {

absl::Status Bad(const std::string& message) { return absl::InvalidArgumentError(message); }

absl::Status CheckRange(const char* field, double value, double lo, double hi) {
  if (!std::isfinite(value) || value < lo || value > hi)
    return Bad(absl::StrCat("spec.measure.", field, " must be in [", lo, ", ", hi, "], got ", value));
  return absl::OkStatus();
}

absl::Status CheckMeasure(const measure::MeasureOptions& m) {
  for (absl::Status s : {CheckRange("number", m.number, 0, 1e6), CheckRange("repeat", m.repeat, 0, 1000),
                         CheckRange("min_repeat_ms", m.min_repeat_ms, 0, 60000),
                         CheckRange("threads", m.threads, 0, 4096),
                         CheckRange("timeout_s", m.timeout_s, 0, 86400)})
    if (!s.ok()) return s;
  return absl::OkStatus();
}

// What a form must share with the workload it computes: the shapes and
// dtypes of its inputs and outputs, in order.
std::string Signature(const te::ComputeDag& dag) {
  std::string out;
  for (const std::vector<int>& ops : {dag.InputOps(), dag.OutputOps()}) {
    for (int i : ops) {
      absl::StrAppend(&out, te::ToString(dag.op(i)->dtype), "[");
      for (int64_t extent : dag.op(i)->shape) absl::StrAppend(&out, extent, ",");
      absl::StrAppend(&out, "]");
    }
    absl::StrAppend(&out, "->");
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<te::Workload>> CheckJobSpec(const JobSpec& spec) {
  if (spec.workloads.empty())
    return Bad("spec.workloads: give at least one workload (a spec like matmul:M=64,N=64,K=64 or a definition)");
  if (spec.workloads.size() > static_cast<size_t>(kMaxWorkloadsPerJob))
    return Bad(absl::StrCat("spec.workloads: at most ", kMaxWorkloadsPerJob, " workloads per job, got ",
                            spec.workloads.size(), "; split them over several jobs"));
  if (spec.device_key.empty())
    return Bad("spec.device_key: say which device key to measure on ('tuneforge workers' lists them)");
  if (spec.trials < 1) return Bad(absl::StrCat("spec.trials must be >= 1, got ", spec.trials));
  if (spec.batch_size < 0 || spec.batch_size > 4096)
    return Bad(absl::StrCat("spec.batch_size must be in [0, 4096] (0: ", kDefaultBatchSize, "), got ",
                            spec.batch_size));
  if (absl::StatusOr<search::PolicyKind> p = search::ParsePolicy(spec.policy); !p.ok())
    return Bad(absl::StrCat("spec.policy: ", p.status().message()));
  if (absl::StatusOr<search::SketchSelection> s = search::ParseSketchSelection(spec.sketch_selection); !s.ok())
    return Bad(absl::StrCat("spec.sketch_selection: ", s.status().message()));
  if (absl::StatusOr<search::MutationChoice> m = search::ParseMutationChoice(spec.mutation_choice); !m.ok())
    return Bad(absl::StrCat("spec.mutation_choice: ", m.status().message()));
  if (spec.droplet_after < 0)
    return Bad(absl::StrCat("spec.droplet_after must be >= 0 (0: ", search::kDefaultDropletAfter, "), got ",
                            spec.droplet_after));
  if (spec.neighbour_share && !(*spec.neighbour_share >= 0 && *spec.neighbour_share <= 1))
    return Bad(absl::StrCat("spec.neighbour_share must be in [0, 1] (unset: ", search::kDefaultBestNeighbourShare,
                            ", 0: Ansor's search alone), got ", *spec.neighbour_share));
  if (spec.retime_top < -1 || spec.retime_top > kMaxRetimeTop)
    return Bad(absl::StrCat("spec.retime_top must be in [-1, ", kMaxRetimeTop, "] (0: ", kDefaultRetimeTop,
                            ", -1: no re-timing), got ", spec.retime_top));
  if (absl::Status s = CheckMeasure(spec.measure); !s.ok()) return s;
  if (absl::StatusOr<search::TaskSchedulerKind> k = search::ParseTaskScheduler(spec.task_scheduler); !k.ok())
    return Bad(absl::StrCat("spec.task_scheduler: ", k.status().message()));
  if (!spec.weights.empty() && spec.weights.size() != spec.workloads.size())
    return Bad(absl::StrCat("spec.weights: ", spec.weights.size(), " weights for ", spec.workloads.size(),
                            " workloads; give one per workload, in order, or none (1 each)"));
  for (size_t i = 0; i < spec.weights.size(); ++i)
    if (!std::isfinite(spec.weights[i]) || spec.weights[i] <= 0 || spec.weights[i] > kMaxWorkloadWeight)
      return Bad(absl::StrCat("spec.weights[", i, "] must be in (0, ", kMaxWorkloadWeight,
                              "] (how often the workload runs in the model), got ", spec.weights[i]));
  if (!spec.form_of.empty() && spec.form_of.size() != spec.workloads.size())
    return Bad(absl::StrCat("spec.form_of: ", spec.form_of.size(), " entries for ", spec.workloads.size(),
                            " workloads; give one per workload, in order, or none"));
  for (size_t i = 0; i < spec.form_of.size(); ++i) {
    const int of = spec.form_of[i];
    if (of == 0) continue;
    if (of < 0 || static_cast<size_t>(of) > i || spec.form_of[of - 1] != 0)
      return Bad(absl::StrCat("spec.form_of[", i, "] is ", of, "; give 0, or 1 + the index of an earlier workload "
                              "that is not itself another's form"));
  }
  if (!spec.untuned.empty() && spec.untuned.size() != spec.workloads.size())
    return Bad(absl::StrCat("spec.untuned: ", spec.untuned.size(), " entries for ", spec.workloads.size(),
                            " workloads; give one per workload, in order, or none"));
  for (size_t i = 0; i < spec.untuned.size(); ++i) {
    if (!spec.untuned[i]) continue;
    bool tuned_form = false;
    for (size_t j = 0; j < spec.form_of.size(); ++j)
      tuned_form |= spec.form_of[j] == static_cast<int>(i) + 1 && !spec.untuned[j];
    if (!tuned_form)
      return Bad(absl::StrCat("spec.untuned[", i, "] is true, but workload ", i, " has no tuned form (spec.form_of); "
                              "mark only a workload that another, tuned, workload is a form of"));
  }
  std::vector<te::Workload> parsed;
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    absl::StatusOr<te::Workload> w = measure::ParseWorkloadSource(spec.workloads[i]);
    if (!w.ok()) return Bad(absl::StrCat("spec.workloads[", i, "]: ", w.status().message()));
    parsed.push_back(*std::move(w));
  }
  for (size_t i = 0; i < spec.form_of.size(); ++i)
    if (spec.form_of[i] > 0 && Signature(*parsed[i].dag) != Signature(*parsed[spec.form_of[i] - 1].dag))
      return Bad(absl::StrCat("spec.form_of[", i, "]: ", parsed[i].spec, " does not read and write the tensors of ",
                              parsed[spec.form_of[i] - 1].spec, " (the same input and output shapes and dtypes), "
                              "so it is no form of it"));
  return parsed;
}

}  // namespace tuneforge::server
