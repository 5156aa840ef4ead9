#include "measure/build_service.h"

#include "absl/strings/str_cat.h"
#include "common/codegen/function_object_cache.h"
#include "common/schedule/schedule_json.h"
#include "common/te/workload.h"
#include "measure/builder.h"
#include "measure/measure_proto.h"

namespace tuneforge::measure {
namespace {

runner::BuildReply Reply(MeasureErrorKind kind, std::string error) {
  runner::BuildReply r;
  r.set_error_kind(ErrorKindToProto(kind));
  r.set_error(std::move(error));
  return r;
}

}  // namespace

runner::BuildRequest MakeBuildRequest(const WorkloadSource& source, const std::string& workload_key,
                                      const std::vector<schedule::Step>& steps, const codegen::Target& target) {
  runner::BuildRequest r;
  const std::string spec = source.is_definition() ? "" : source.text;
  r.set_spec(spec);
  if (source.is_definition()) {
    r.set_definition(source.text);
    r.set_name(source.name);
  }
  r.set_workload_key(workload_key);
  if (!steps.empty())
    r.set_schedule_json(schedule::ScheduleToJsonText(
        schedule::Schedule{schedule::kScheduleVersion, spec, workload_key, steps}, -1));
  r.set_target(target.ToString());
  r.set_l1_bytes(target.l1_bytes);
  r.set_l2_bytes(target.l2_bytes);
  r.set_l3_bytes(target.l3_bytes);
  return r;
}

runner::BuildReply ServeBuild(const runner::BuildRequest& request) {
  absl::StatusOr<te::Workload> workload = request.definition().empty()
                                              ? te::ParseWorkload(request.spec())
                                              : te::ParseDefinition(request.definition(), request.name());
  if (!workload.ok())
    return Reply(MeasureErrorKind::kInvalidSchedule,
                absl::StrCat("the builder cannot parse the workload: ", workload.status().message()));
  if (workload->dag->workload_key() != request.workload_key())
    return Reply(MeasureErrorKind::kInvalidSchedule,
                absl::StrCat("the builder computes workload key '", workload->dag->workload_key(), "' for '",
                             workload->spec, "' but was asked for '", request.workload_key(),
                             "'; the builder and its parent must be the same tuneforge build"));
  std::vector<schedule::Step> steps;
  if (!request.schedule_json().empty()) {
    absl::StatusOr<schedule::Schedule> schedule = schedule::ParseScheduleJson(request.schedule_json());
    if (!schedule.ok())
      return Reply(MeasureErrorKind::kInvalidSchedule, std::string(schedule.status().message()));
    steps = std::move(schedule->steps);
  }
  // Parsing checks the CPU and features against LLVM and probes the host:
  // the last target is kept (a builder serves one device).
  static std::string last_spec;
  static absl::StatusOr<codegen::Target> target = absl::UnknownError("no target yet");
  if (request.target() != last_spec) {
    target = codegen::Target::Parse(request.target());
    last_spec = request.target();
  }
  if (!target.ok())
    return Reply(MeasureErrorKind::kCompileError,
                absl::StrCat("the builder cannot use the target: ", target.status().message()));
  codegen::Target with_caches = *target;
  with_caches.l1_bytes = request.l1_bytes();
  with_caches.l2_bytes = request.l2_bytes();
  with_caches.l3_bytes = request.l3_bytes();
  // A builder process serves one tuning after another: the functions of
  // earlier candidates that a new one repeats are not compiled again.
  // A pool's builders share theirs through a folder.
  static codegen::FunctionObjectCache* function_cache = new codegen::FunctionObjectCache;
  function_cache->ShareThrough(request.function_cache_dir());
  BuiltKernel k = BuildSchedule(workload->dag, steps, with_caches, {.function_cache = function_cache});
  if (k.ok() && request.shared_object() && !k.object.is_gpu()) {
    absl::StatusOr<codegen::CompiledObject> linked = codegen::LinkSharedObject(k.object);
    if (!linked.ok()) return Reply(MeasureErrorKind::kCompileError, std::string(linked.status().message()));
    k.object = *std::move(linked);
  }
  runner::BuildReply reply = Reply(k.error_kind, std::move(k.error));
  *reply.mutable_object() = KernelObjectToProto(k.object);
  ArgSpecsToProto(k.args, reply.mutable_args());
  return reply;
}

}  // namespace tuneforge::measure
