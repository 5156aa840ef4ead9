#include "server/core/record_from_result.h"

#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_json.h"
#include "common/schedule/schedule_proto.h"
#include "measure/error_kind.h"

namespace tuneforge::server {

v1::Record MakeRecord(const v1::MeasureTask& task, const std::string& job_id,
                      const std::string& device_key, const std::string& worker_id,
                      const std::string& workload_label, double flops,
                      const v1::MeasureResult& result) {
  v1::Record r;
  r.set_workload_key(task.workload_key());
  r.set_workload(workload_label);
  r.set_device_key(device_key);
  r.set_job_id(job_id);
  r.set_task_id(task.task_id());
  absl::StatusOr<schedule::Schedule> s = schedule::ScheduleFromProto(task.schedule());
  if (s.ok()) r.set_schedule_json(schedule::ScheduleToJsonText(*s, -1));
  // An unset kind is a success, as before the kind was an enum.
  const measure::MeasureErrorKind kind =
      measure::ErrorKindFromProto(result.error_kind()).value_or(measure::MeasureErrorKind::kNone);
  r.set_error_kind(measure::ErrorKindName(kind));
  r.set_error(result.error());
  r.set_median_seconds(result.median_seconds());
  *r.mutable_repeat_seconds() = result.repeat_seconds();
  r.set_compile_ms(result.compile_ms());
  if (kind == measure::MeasureErrorKind::kNone && result.median_seconds() > 0) r.set_gflops(flops / result.median_seconds() / 1e9);
  r.set_worker_id(worker_id);
  return r;
}

v1::MeasureResult LostResult(const std::string& task_id, int attempts) {
  v1::MeasureResult r;
  r.set_task_id(task_id);
  r.set_error_kind(v1::MEASURE_ERROR_KIND_WORKER_LOST);
  r.set_error(absl::StrCat("leased ", attempts,
                           " times and never reported: each worker died or missed its deadline"));
  return r;
}

}  // namespace tuneforge::server
