// Edge checks of the Jobs service's requests. A JobSpec's meaning (trials,
// batch size, policy, measure options, whether each workload parses) is
// checked by the job manager (server/core/job_spec_check.h), the one list
// of those rules; here are the sizes and formats that must hold before any
// of it is looked at.
#include "absl/strings/str_cat.h"
#include "server/core/job_spec_check.h"
#include "server/service/field_checks.h"
#include "server/service/limits.h"
#include "server/service/request_checks.h"

namespace tuneforge::server {

absl::Status CheckSubmitJob(const v1::SubmitJobRequest& request) {
  if (!request.has_spec())
    return FieldError("spec", "is required: the workloads, device key and trial budget of the job");
  const v1::JobSpec& spec = request.spec();
  if (spec.workloads_size() > kMaxWorkloadsPerJob)
    return FieldError("spec.workloads", absl::StrCat("has ", spec.workloads_size(), " workloads; at most ",
                                                     kMaxWorkloadsPerJob, " per job: split them over several jobs"));
  for (int i = 0; i < spec.workloads_size(); ++i)
    TF_RETURN_IF_ERROR(CheckWorkload(Indexed("spec.workloads", i), spec.workloads(i)));
  TF_RETURN_IF_ERROR(CheckDeviceKey("spec.device_key", spec.device_key(), /*required=*/true));
  TF_RETURN_IF_ERROR(CheckText("spec.policy", spec.policy(), limits::kMaxNameLength));
  TF_RETURN_IF_ERROR(CheckText("spec.sketch_selection", spec.sketch_selection(), limits::kMaxNameLength));
  TF_RETURN_IF_ERROR(CheckText("spec.mutation_choice", spec.mutation_choice(), limits::kMaxNameLength));
  return CheckText("spec.name", spec.name(), limits::kMaxNameLength);
}

absl::Status CheckListJobs(const v1::ListJobsRequest& request) {
  if (!v1::JobState_IsValid(request.state()))
    return FieldError("state", absl::StrCat("must be a JobState (0..5), got ", static_cast<int>(request.state())));
  return CheckRange("limit", request.limit(), 0, limits::kMaxListLimit);
}

absl::Status CheckJobId(const std::string& id) { return CheckId("id", id); }

}  // namespace tuneforge::server
