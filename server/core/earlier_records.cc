#include "server/core/earlier_records.h"

#include "common/schedule/schedule_json.h"
#include "server/core/service_constants.h"

namespace tuneforge::server {

absl::StatusOr<EarlierRecords> LoadEarlierRecords(RecordStore& store, const std::string& workload_key,
                                                  const std::string& device_key, const std::string& job_id) {
  EarlierRecords out;
  absl::StatusOr<std::vector<std::string>> measured = store.MeasuredSchedules(workload_key, device_key);
  if (!measured.ok()) return measured.status();
  out.measured = *std::move(measured);
  if (out.measured.empty()) return out;
  absl::StatusOr<std::vector<Record>> fastest = store.Query({.workload_key = workload_key,
                                                             .device_key = device_key,
                                                             .job_id = "",  // any job's
                                                             .only_ok = true,
                                                             .limit = kContinueFromFastest,
                                                             .fastest_first = true});
  if (!fastest.ok()) return fastest.status();
  for (const Record& r : *fastest) {
    absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(r.schedule_json);
    if (!s.ok()) continue;  // of an older schedule version: nothing to go on from
    out.fastest.push_back({s->steps, /*ok=*/true, r.median_seconds, r.repeat_seconds});
  }
  absl::StatusOr<std::optional<Record>> best = store.Best(workload_key, device_key);
  if (!best.ok()) return best.status();
  if (*best && (*best)->job_id != job_id) out.best_seconds = (*best)->median_seconds;
  return out;
}

}  // namespace tuneforge::server
