#include "server/core/record_from_result.h"

#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_json.h"

namespace tuneforge::server {

Record MakeRecord(const MeasureTask& task, const std::string& job_id, const std::string& device_key,
                  const std::string& worker_id, const std::string& workload_label, double flops,
                  const measure::MeasureResult& result) {
  Record r;
  r.workload_key = task.workload_key;
  r.workload = workload_label;
  r.device_key = device_key;
  r.job_id = job_id;
  r.task_id = task.task_id;
  r.schedule_json = schedule::ScheduleToJsonText(task.schedule, -1);
  r.error_kind = result.error_kind;
  r.error = result.error;
  r.median_seconds = result.median_seconds;
  r.repeat_seconds = result.repeat_seconds;
  r.compile_ms = result.compile_ms;
  if (result.ok() && result.median_seconds > 0) r.gflops = flops / result.median_seconds / 1e9;
  r.worker_id = worker_id;
  return r;
}

measure::MeasureResult LostResult(int attempts) {
  return measure::MeasureResult::Failure(
      measure::MeasureErrorKind::kWorkerLost,
      absl::StrCat("leased ", attempts, " times and never reported: each worker died or missed its deadline"));
}

}  // namespace tuneforge::server
