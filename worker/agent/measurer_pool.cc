#include "worker/agent/measurer_pool.h"

#include "absl/strings/str_cat.h"
#include "measure/measure_proto.h"

namespace tuneforge::worker {

absl::StatusOr<measure::Measurer*> MeasurerPool::Get(const v1::MeasureOptions& options) {
  measure::MeasureOptions local;
  local.runner_path = runner_path_;
  const measure::MeasureOptions wanted = measure::MeasureOptionsFromProto(options, local);
  const std::string key =
      absl::StrCat(wanted.number, "/", wanted.repeat, "/", wanted.min_repeat_ms, "/",
                   wanted.flush_cache, "/", wanted.threads, "/", wanted.timeout_s);
  for (size_t i = 0; i < measurers_.size(); ++i) {
    if (measurers_[i].first != key) continue;
    // Move to the back: most recently used.
    auto entry = std::move(measurers_[i]);
    measurers_.erase(measurers_.begin() + static_cast<std::ptrdiff_t>(i));
    measurers_.push_back(std::move(entry));
    return measurers_.back().second.get();
  }
  absl::StatusOr<std::unique_ptr<measure::Measurer>> created =
      measure::Measurer::Create(host_, wanted);
  if (!created.ok()) return created.status();
  if (measurers_.size() >= kMaxMeasurers) measurers_.erase(measurers_.begin());
  measurers_.emplace_back(key, *std::move(created));
  return measurers_.back().second.get();
}

}  // namespace tuneforge::worker
