// Edge checks of the Workers service's requests.
#include <cmath>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "server/service/field_checks.h"
#include "server/service/limits.h"
#include "server/service/request_checks.h"
#include "measure/error_kind.h"

namespace tuneforge::server {
namespace {

constexpr int kMaxCores = 1 << 16;
constexpr int64_t kMaxCacheBytes = int64_t{1} << 40;
constexpr double kMaxSeconds = 1e6;

absl::Status CheckTriple(const std::string& triple) {
  bool ok = !triple.empty() && triple.size() <= 128;
  for (char c : triple)
    ok = ok && (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
  if (!ok)
    return FieldError("device.triple", "must be an LLVM target triple such as "
                                       "'x86_64-unknown-linux-gnu' (the worker's probe fills it)");
  return absl::OkStatus();
}

absl::Status CheckResult(const std::string& path, const v1::MeasureResult& r) {
  TF_RETURN_IF_ERROR(CheckId(Child(path, "task_id"), r.task_id()));
  std::optional<measure::MeasureErrorKind> kind = measure::ErrorKindFromProto(r.error_kind());
  if (!kind)
    return FieldError(Child(path, "error_kind"),
                      absl::StrCat(r.error_kind() == v1::MEASURE_ERROR_KIND_UNSPECIFIED
                                       ? "is not set"
                                       : absl::StrCat("is ", static_cast<int>(r.error_kind()),
                                                      ", not an error kind"),
                                   "; use one of ", measure::ErrorKindNameList()));
  if (r.error().size() > static_cast<size_t>(limits::kMaxErrorTextBytes))
    return FieldError(Child(path, "error"), absl::StrCat("is ", r.error().size(), " bytes; cut it to ",
                                                         limits::kMaxErrorTextBytes));
  TF_RETURN_IF_ERROR(CheckFiniteRange(Child(path, "median_seconds"), r.median_seconds(), 0, kMaxSeconds));
  if (*kind == measure::MeasureErrorKind::kNone && r.median_seconds() <= 0)
    return FieldError(Child(path, "median_seconds"), "must be > 0 for a result with error_kind 'none'");
  if (r.repeat_seconds_size() > limits::kMaxRepeatSeconds)
    return FieldError(Child(path, "repeat_seconds"), absl::StrCat("has ", r.repeat_seconds_size(),
                                                                  " timings; at most ",
                                                                  limits::kMaxRepeatSeconds));
  for (int i = 0; i < r.repeat_seconds_size(); ++i)
    TF_RETURN_IF_ERROR(
        CheckFiniteRange(Indexed(Child(path, "repeat_seconds"), i), r.repeat_seconds(i), 0, kMaxSeconds));
  TF_RETURN_IF_ERROR(CheckFiniteRange(Child(path, "compile_ms"), r.compile_ms(), 0, kMaxSeconds * 1000));
  // NaN or infinity are honest answers for a wrong result; a negative one is not.
  if (r.max_abs_error() < 0)
    return FieldError(Child(path, "max_abs_error"), absl::StrCat("must be >= 0, got ", r.max_abs_error()));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckWorkerId(const std::string& worker_id) {
  return CheckId("worker_id", worker_id);
}

absl::Status CheckRegisterWorker(const v1::RegisterWorkerRequest& request) {
  if (!request.has_device())
    return FieldError("device", "is required: the worker's probed device (tuneforge-worker fills it)");
  const v1::DeviceInfo& d = request.device();
  TF_RETURN_IF_ERROR(CheckDeviceKey("device.device_key", d.device_key(), /*required=*/true));
  TF_RETURN_IF_ERROR(CheckTriple(d.triple()));
  TF_RETURN_IF_ERROR(CheckText("device.cpu", d.cpu(), limits::kMaxDeviceTextLength));
  TF_RETURN_IF_ERROR(CheckText("device.features", d.features(), limits::kMaxDeviceTextLength));
  TF_RETURN_IF_ERROR(CheckRange("device.cores", d.cores(), 1, kMaxCores));
  TF_RETURN_IF_ERROR(CheckRange("device.l1_bytes", d.l1_bytes(), 0, kMaxCacheBytes));
  TF_RETURN_IF_ERROR(CheckRange("device.l2_bytes", d.l2_bytes(), 0, kMaxCacheBytes));
  TF_RETURN_IF_ERROR(CheckRange("device.l3_bytes", d.l3_bytes(), 0, kMaxCacheBytes));
  return CheckText("device.hostname", d.hostname(), limits::kMaxNameLength);
}

absl::Status CheckLease(const v1::LeaseRequest& request) {
  TF_RETURN_IF_ERROR(CheckWorkerId(request.worker_id()));
  TF_RETURN_IF_ERROR(CheckRange("max_tasks", request.max_tasks(), 1, limits::kMaxLeaseTasks));
  // Longer waits are allowed and cut to limits::kMaxLeaseWaitMs by the handler.
  return CheckAtLeast("wait_ms", request.wait_ms(), 0);
}

absl::Status CheckReport(const v1::ReportRequest& request) {
  TF_RETURN_IF_ERROR(CheckWorkerId(request.worker_id()));
  TF_RETURN_IF_ERROR(CheckId("lease_id", request.lease_id()));
  if (request.results().empty()) return FieldError("results", "is empty; report at least one result");
  if (request.results_size() > limits::kMaxReportResults)
    return FieldError("results", absl::StrCat("has ", request.results_size(), " results; at most ",
                                              limits::kMaxReportResults, " per report"));
  absl::flat_hash_set<std::string_view> task_ids;
  for (int i = 0; i < request.results_size(); ++i) {
    std::string path = Indexed("results", i);
    TF_RETURN_IF_ERROR(CheckResult(path, request.results(i)));
    if (!task_ids.insert(request.results(i).task_id()).second)
      return FieldError(Child(path, "task_id"), absl::StrCat("'", request.results(i).task_id(),
                                                             "' appears twice in this report; send one "
                                                             "result per task"));
  }
  return absl::OkStatus();
}

}  // namespace tuneforge::server
