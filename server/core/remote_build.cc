#include "server/core/remote_build.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/codegen/target.h"
#include "measure/build_service.h"
#include "measure/builder.h"
#include "measure/builder_pool.h"
#include "measure/measurer.h"

namespace tuneforge::server {
namespace {

codegen::Target DeviceTarget(const DeviceInfo& d) {
  codegen::Target t;
  t.triple = d.triple;
  t.cpu = d.cpu;
  t.features = d.features;
  t.num_cores = std::max(1, d.cores);
  if (d.l1_bytes > 0) t.l1_bytes = d.l1_bytes;
  if (d.l2_bytes > 0) t.l2_bytes = d.l2_bytes;
  t.l3_bytes = d.l3_bytes;
  return t;
}

std::vector<RemoteBuildResult> BuildForDevice(const DeviceInfo& device, WorkloadCache& workloads,
                                              measure::BuilderPool& builders, std::vector<MeasureTask*>& tasks) {
  codegen::Target target = DeviceTarget(device);
  // Shared objects: the device's runner loads them with dlopen, with no
  // linker or LLVM of its own.
  auto request = [&](const MeasureTask& task, const std::vector<schedule::Step>& steps) {
    measure::BuildRequest r = measure::MakeBuildRequest(task.workload, task.workload_key, steps, target);
    r.set_shared_object(true);
    return r;
  };
  std::vector<RemoteBuildResult> results(tasks.size());
  // Every candidate, then one reference per workload: one pass over the
  // builder processes.
  std::vector<measure::BuildRequest> requests;
  std::vector<double> deadlines_s;  // the candidates' own; references: the pool's timeout
  std::vector<int> request_of(tasks.size(), -1);
  absl::flat_hash_map<std::string, int> reference_request;
  for (size_t i = 0; i < tasks.size(); ++i) {
    absl::StatusOr<te::Workload> w = workloads.Get(tasks[i]->workload_key, tasks[i]->workload);
    if (!w.ok()) {
      results[i] = {measure::MeasureErrorKind::kInvalidSchedule, std::string(w.status().message())};
      continue;
    }
    const std::string& key = tasks[i]->workload_key;
    request_of[i] = static_cast<int>(requests.size());
    requests.push_back(request(*tasks[i], tasks[i]->schedule.steps));
    deadlines_s.push_back(tasks[i]->build_deadline_s);
    reference_request.try_emplace(key, -1);  // numbered below, after the candidates
  }
  std::vector<std::string> reference_keys;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (request_of[i] < 0) continue;
    const std::string& key = tasks[i]->workload_key;
    if (reference_request[key] >= 0) continue;
    reference_request[key] = static_cast<int>(requests.size());
    requests.push_back(request(*tasks[i], {}));
  }
  std::vector<measure::BuiltKernel> built = builders.Build(requests, [] { return false; }, deadlines_s);
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (request_of[i] < 0) continue;
    const measure::BuiltKernel& k = built[request_of[i]];
    if (!k.ok()) {
      results[i] = {k.error_kind, k.error};
      continue;
    }
    const measure::BuiltKernel& ref = built[reference_request.at(tasks[i]->workload_key)];
    if (!ref.ok()) {
      results[i] = {measure::MeasureErrorKind::kCompileError,
                    absl::StrCat("building the reference for ", device.device_key, " failed: ", ref.error)};
      continue;
    }
    tasks[i]->candidate = k.object;
    tasks[i]->reference = ref.object;
  }
  return results;
}

class PooledRemoteBuildService : public RemoteBuildService {
 public:
  PooledRemoteBuildService(WorkloadCache* workloads, double build_timeout_s)
      : workloads_(workloads), builders_(measure::RunnerChildConfig(measure::MeasureOptions{}), 0, build_timeout_s) {}

  std::vector<RemoteBuildResult> Build(const DeviceInfo& device, std::vector<MeasureTask*>& tasks) override {
    return BuildForDevice(device, *workloads_, builders_, tasks);
  }

 private:
  WorkloadCache* workloads_;
  measure::BuilderPool builders_;
};

}  // namespace

std::unique_ptr<RemoteBuildService> MakeRemoteBuildService(WorkloadCache* workloads, double build_timeout_s) {
  return std::make_unique<PooledRemoteBuildService>(workloads, build_timeout_s);
}

}  // namespace tuneforge::server
