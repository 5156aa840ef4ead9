#include "client/best_of_forms.h"

#include <utility>

#include "common/te/workload_forms.h"

namespace tuneforge::cli {

absl::StatusOr<BestOverForms> FindBestOverForms(RecordSource& source, const te::Workload& workload,
                                                const std::vector<std::string>& devices) {
  BestOverForms out;
  out.forms.push_back({workload, std::nullopt});
  if (std::optional<te::Workload> winograd = te::WinogradFormOf(workload))
    out.forms.push_back({*std::move(winograd), std::nullopt});
  for (size_t i = 0; i < out.forms.size(); ++i) {
    FormBest& f = out.forms[i];
    for (const std::string& device : devices) {
      absl::StatusOr<std::optional<v1::Record>> best = BestForDevice(source, f.form.dag->workload_key(), device);
      if (!best.ok()) return best.status();
      if (best->has_value()) {
        f.record = **std::move(best);
        break;
      }
    }
    if (f.record && (out.fastest < 0 || f.record->median_seconds() < out.best()->record->median_seconds()))
      out.fastest = static_cast<int>(i);
  }
  return out;
}

double GflopsOf(const te::Workload& workload, const v1::Record& record) {
  if (record.workload_key() == workload.dag->workload_key() && record.gflops() > 0) return record.gflops();
  return record.median_seconds() > 0 ? workload.dag->flops() / record.median_seconds() / 1e9 : 0;
}

}  // namespace tuneforge::cli
