#include "measure/build_service.h"

#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_json.h"
#include "common/te/workload.h"
#include "measure/builder.h"

namespace tuneforge::measure {
namespace {

BuildReply Fail(MeasureErrorKind kind, std::string error) {
  BuildReply r;
  r.error_kind = kind;
  r.error = std::move(error);
  return r;
}

}  // namespace

BuildRequest MakeBuildRequest(const WorkloadSource& source, const std::string& workload_key,
                              const std::vector<schedule::Step>& steps, const codegen::Target& target) {
  BuildRequest r;
  r.spec = source.spec;
  r.definition = source.definition;
  r.name = source.name;
  r.workload_key = workload_key;
  if (!steps.empty())
    r.schedule_json = schedule::ScheduleToJsonText(
        schedule::Schedule{schedule::kScheduleVersion, source.spec, workload_key, steps}, -1);
  r.target = target.ToString();
  r.l1_bytes = target.l1_bytes;
  r.l2_bytes = target.l2_bytes;
  r.l3_bytes = target.l3_bytes;
  return r;
}

BuildReply ServeBuild(const BuildRequest& request) {
  absl::StatusOr<te::Workload> workload = request.definition.empty()
                                              ? te::ParseWorkload(request.spec)
                                              : te::ParseDefinition(request.definition, request.name);
  if (!workload.ok())
    return Fail(MeasureErrorKind::kInvalidSchedule,
                absl::StrCat("the builder cannot parse the workload: ", workload.status().message()));
  if (workload->dag->workload_key() != request.workload_key)
    return Fail(MeasureErrorKind::kInvalidSchedule,
                absl::StrCat("the builder computes workload key '", workload->dag->workload_key(), "' for '",
                             workload->spec, "' but was asked for '", request.workload_key,
                             "'; the builder and its parent must be the same tuneforge build"));
  std::vector<schedule::Step> steps;
  if (!request.schedule_json.empty()) {
    absl::StatusOr<schedule::Schedule> schedule = schedule::ParseScheduleJson(request.schedule_json);
    if (!schedule.ok())
      return Fail(MeasureErrorKind::kInvalidSchedule, std::string(schedule.status().message()));
    steps = std::move(schedule->steps);
  }
  // Parsing checks the CPU and features against LLVM and probes the host:
  // the last target is kept (a builder serves one device).
  static std::string last_spec;
  static absl::StatusOr<codegen::Target> target = absl::UnknownError("no target yet");
  if (request.target != last_spec) {
    target = codegen::Target::Parse(request.target);
    last_spec = request.target;
  }
  if (!target.ok())
    return Fail(MeasureErrorKind::kCompileError,
                absl::StrCat("the builder cannot use the target: ", target.status().message()));
  codegen::Target with_caches = *target;
  with_caches.l1_bytes = request.l1_bytes;
  with_caches.l2_bytes = request.l2_bytes;
  with_caches.l3_bytes = request.l3_bytes;
  BuiltKernel k = BuildSchedule(workload->dag, steps, with_caches);
  BuildReply reply;
  reply.error_kind = k.error_kind;
  reply.error = std::move(k.error);
  reply.object = KernelBlob{k.object.symbol, k.object.triple, std::move(k.object.object)};
  reply.args = std::move(k.args);
  return reply;
}

}  // namespace tuneforge::measure
