#include "server/core/remote_build.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/codegen/target.h"
#include "common/schedule/schedule_proto.h"
#include "worker/measure/builder.h"

namespace tuneforge::server {
namespace {

codegen::Target DeviceTarget(const v1::DeviceInfo& d) {
  codegen::Target t;
  t.triple = d.triple();
  t.cpu = d.cpu();
  t.features = d.features();
  t.num_cores = std::max(1, d.cores());
  if (d.l1_bytes() > 0) t.l1_bytes = d.l1_bytes();
  if (d.l2_bytes() > 0) t.l2_bytes = d.l2_bytes();
  t.l3_bytes = d.l3_bytes();
  return t;
}

void ToProto(const measure::BuiltKernel& k, v1::BuiltKernel* out) {
  out->set_symbol(k.object.symbol);
  out->set_triple(k.object.triple);
  out->set_object(k.object.object);
}

}  // namespace

std::vector<RemoteBuildResult> BuildForDevice(const v1::DeviceInfo& device, WorkloadCache& workloads,
                                              std::vector<v1::MeasureTask*>& tasks) {
  codegen::Target target = DeviceTarget(device);
  std::vector<RemoteBuildResult> results(tasks.size());
  std::vector<te::ComputeDagPtr> dags(tasks.size());
  std::vector<std::vector<schedule::Step>> steps(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    absl::StatusOr<te::Workload> w = workloads.Get(tasks[i]->workload_key(), tasks[i]->workload());
    absl::StatusOr<schedule::Schedule> s = schedule::ScheduleFromProto(tasks[i]->schedule());
    if (!w.ok() || !s.ok()) {
      results[i] = {"invalid_schedule", std::string(!w.ok() ? w.status().message() : s.status().message())};
      continue;
    }
    dags[i] = w->dag;
    steps[i] = s->steps;
  }
  // Candidates in parallel; one reference per workload.
  std::vector<measure::BuiltKernel> built = measure::BuildParallel(
      static_cast<int>(tasks.size()), 0, [&](int i) -> measure::BuiltKernel {
        if (!dags[i]) return {};
        return measure::BuildSchedule(dags[i], steps[i], target);
      });
  absl::flat_hash_map<std::string, measure::BuiltKernel> references;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!dags[i]) continue;
    const measure::BuiltKernel& k = built[i];
    if (!k.ok()) {
      results[i] = {measure::ErrorKindName(k.error_kind), k.error};
      continue;
    }
    auto ref = references.find(tasks[i]->workload_key());
    if (ref == references.end())
      ref = references.emplace(tasks[i]->workload_key(), measure::BuildReference(dags[i], target)).first;
    if (!ref->second.ok()) {
      results[i] = {"compile_error",
                    absl::StrCat("building the reference for ", device.device_key(), " failed: ",
                                 ref->second.error)};
      continue;
    }
    ToProto(k, tasks[i]->mutable_candidate());
    ToProto(ref->second, tasks[i]->mutable_reference());
  }
  return results;
}

}  // namespace tuneforge::server
