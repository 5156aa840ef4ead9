#include "client/model_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tuneforge::cli {

Json ModelReportJson(const graph::Model& model, const ModelRunReport& r, const std::string& device_key,
                     const std::string& records) {
  Json kernels = Json::array();
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const graph::KernelInfo& k = r.kernels[i];
    const graph::ModelTask& t = model.tasks[i];
    kernels.push_back(Json{{"name", k.name},
                           {"workload", k.spec.empty() ? Json() : Json(k.spec)},
                           {"workload_key", k.workload_key},
                           {"weight", t.weight},
                           {"tuned", k.tuned},
                           {"ms", i < r.task_ms.size() ? Json(r.task_ms[i]) : Json()},
                           {"fallback", k.fallback_reason.empty() ? Json() : Json(k.fallback_reason)}});
  }
  return Json{{"latency_ms", r.latency_ms},
              {"tasks", r.tasks},
              {"untuned_tasks", r.untuned_tasks},
              {"outputs_checked", r.outputs_checked},
              {"max_abs_error", r.max_abs_error},
              {"checked_against", r.checked_against},
              {"mismatch", r.mismatch.empty() ? Json() : Json(r.mismatch)},
              {"model", model.name},
              {"nodes", model.graph.nodes.size()},
              {"kernels_run", model.groups.size()},
              {"arena_bytes", r.arena_bytes},
              {"target", device_key},
              {"records", records},
              {"kernels", kernels}};
}

std::string ModelReportText(const graph::Model& model, const ModelRunReport& r,
                            const std::string& device_key, const std::string& records) {
  std::string text = absl::StrFormat(
      "%s: %.4g ms (median), %d kernels per run from %d tasks, %d tuned and %d untuned (unscheduled) "
      "for %s from %s\noutputs %s %s (max abs error %.3g)\nper task: calls per model run, its kernels' ms per "
      "model run (median of the runs), share of all kernels' time",
      model.name, r.latency_ms, static_cast<int>(model.groups.size()), r.tasks, r.tasks - r.untuned_tasks,
      r.untuned_tasks, device_key, records, r.outputs_checked ? "match" : "DO NOT match", r.checked_against,
      r.max_abs_error);
  double profiled_ms = 0;
  for (double ms : r.task_ms) profiled_ms += ms;
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const graph::KernelInfo& k = r.kernels[i];
    const double ms = i < r.task_ms.size() ? r.task_ms[i] : 0;
    absl::StrAppend(&text, absl::StrFormat("\n  %-8s x%-3d %9.4f ms %5.1f%%  %s", k.tuned ? "tuned" : "untuned",
                                           model.tasks[i].weight, ms,
                                           profiled_ms > 0 ? 100 * ms / profiled_ms : 0.0,
                                           k.spec.empty() ? k.name : k.spec));
    if (!k.fallback_reason.empty()) absl::StrAppend(&text, " (stored schedule unusable: ", k.fallback_reason, ")");
  }
  return text;
}

}  // namespace tuneforge::cli
