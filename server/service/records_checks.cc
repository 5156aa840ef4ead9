// Edge checks of the Records service's requests.
#include "absl/strings/str_cat.h"
#include "server/service/field_checks.h"
#include "server/service/limits.h"
#include "server/service/request_checks.h"

namespace tuneforge::server {

absl::Status CheckBest(const v1::BestRequest& request) {
  bool has_workload = request.has_workload();
  bool has_key = !request.workload_key().empty();
  if (has_workload == has_key)
    return FieldError("workload", has_key ? "and workload_key are both set; give exactly one of them"
                                          : "or workload_key is required: give exactly one of them");
  if (has_workload) TF_RETURN_IF_ERROR(CheckWorkload("workload", request.workload()));
  if (has_key) TF_RETURN_IF_ERROR(CheckWorkloadKey("workload_key", request.workload_key(), true));
  return CheckDeviceKey("device_key", request.device_key(), /*required=*/false);
}

absl::Status CheckQueryRecords(const v1::QueryRecordsRequest& request) {
  TF_RETURN_IF_ERROR(CheckWorkloadKey("workload_key", request.workload_key(), /*required=*/false));
  TF_RETURN_IF_ERROR(CheckDeviceKey("device_key", request.device_key(), /*required=*/false));
  if (!request.job_id().empty()) TF_RETURN_IF_ERROR(CheckId("job_id", request.job_id()));
  return CheckRange("limit", request.limit(), 0, limits::kMaxQueryLimit);
}

absl::Status CheckExportRecords(const v1::ExportRecordsRequest& request) {
  TF_RETURN_IF_ERROR(CheckWorkloadKey("workload_key", request.workload_key(), /*required=*/false));
  return CheckDeviceKey("device_key", request.device_key(), /*required=*/false);
}

}  // namespace tuneforge::server
