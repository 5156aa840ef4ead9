#include "measure/measurer.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "common/millis_since.h"
#include "measure/measure_proto.h"

namespace tuneforge::measure {
namespace {

MeasureResult FromBuildError(const BuiltKernel& k, const char* prefix = "") {
  MeasureResult r;
  r.error_kind = k.error_kind;
  r.error = absl::StrCat(prefix, k.error);
  r.compile_ms = k.build_ms;
  return r;
}

int64_t DefaultMemoryLimitBytes() {
  int64_t pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return pages * page / 4 * 3;
}

}  // namespace

std::string ResolveRunnerPath(const MeasureOptions& options) {
  if (!options.runner_path.empty()) return options.runner_path;
  if (const char* env = std::getenv("TUNEFORGE_RUNNER"); env != nullptr && *env != '\0') return env;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "tuneforge-runner";
  std::string dir(self, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  return dir + "/tuneforge-runner";
}

ChildConfig RunnerChildConfig(const MeasureOptions& options) {
  return ChildConfig{ResolveRunnerPath(options),
                     options.memory_limit_mb > 0 ? options.memory_limit_mb << 20 : DefaultMemoryLimitBytes()};
}

absl::StatusOr<std::unique_ptr<Measurer>> Measurer::Create(codegen::Target target,
                                                           MeasureOptions options) {
  if (!target.is_host)
    return absl::InvalidArgumentError(
        absl::StrCat("target ", target.ToString(),
                     " cannot run on this machine; measure its "
                     "kernels on a worker of that device (or use the host target)"));
  if (options.repeat < 1 || options.number < 1 || options.min_repeat_ms < 0 ||
      options.timeout_s <= 0 || options.reference_timeout_s <= 0)
    return absl::InvalidArgumentError(absl::StrCat(
        "measure options: repeat (", options.repeat, ") and number (", options.number,
        ") must be >= 1, min_repeat_ms (", options.min_repeat_ms, ") >= 0 and the timeouts > 0"));
  RunnerConfig runner = RunnerChildConfig(options);
  // The CUDA driver reserves far more address space than a runner's limit
  // allows; a GPU runner's large buffers live on the device anyway.
  if (target.gpu) runner.memory_limit_bytes = 0;
  if (access(runner.path.c_str(), X_OK) != 0)
    return absl::NotFoundError(absl::StrCat("runner binary '", runner.path,
                                            "' not found or not executable; build the "
                                            "tuneforge-runner target or set TUNEFORGE_RUNNER"));
  return std::unique_ptr<Measurer>(
      new Measurer(std::move(target), std::move(options), std::move(runner)));
}

Measurer::Measurer(codegen::Target target, MeasureOptions options, RunnerConfig runner)
    : target_(std::move(target)), options_(std::move(options)), runner_(std::move(runner)) {}

const BuiltKernel& Measurer::Reference(const te::ComputeDagPtr& dag) {
  std::string key = dag->workload_key();
  auto it = references_.find(key);
  if (it == references_.end()) it = references_.emplace(key, BuildReference(dag, target_)).first;
  return it->second;
}

std::vector<MeasureResult> Measurer::Measure(
    const te::ComputeDagPtr& dag, const std::vector<std::vector<schedule::Step>>& candidates) {
  const BuiltKernel& reference = Reference(dag);
  std::vector<BuiltKernel> built = BuildSchedules(dag, candidates, target_, options_.build_jobs,
                                                    {.function_cache = &function_cache_});
  return MeasureBuilt(*dag, reference, built);
}

MeasureResult Measurer::MeasureOne(const te::ComputeDagPtr& dag,
                                   const std::vector<schedule::Step>& steps) {
  return Measure(dag, {steps}).front();
}

std::vector<MeasureResult> Measurer::MeasureBuilt(const te::ComputeDag& dag,
                                                  const BuiltKernel& reference,
                                                  const std::vector<BuiltKernel>& candidates,
                                                  BehindBest behind) {
  std::vector<MeasureResult> results;
  results.reserve(candidates.size());
  for (const BuiltKernel& candidate : candidates) {
    if (!candidate.ok()) {
      results.push_back(FromBuildError(candidate));
    } else if (!reference.ok()) {
      MeasureResult r =
          FromBuildError(reference, "building the reference (unscheduled) program failed: ");
      r.compile_ms = candidate.build_ms;
      results.push_back(std::move(r));
    } else {
      results.push_back(Run(dag, reference, candidate, behind));
    }
  }
  return results;
}

MeasureResult Measurer::Run(const te::ComputeDag& dag, const BuiltKernel& reference,
                            const BuiltKernel& candidate, BehindBest behind) {
  if (candidate.args != reference.args) {
    MeasureResult r;
    r.compile_ms = candidate.build_ms;
    r.error_kind = MeasureErrorKind::kLowerError;
    r.error =
        "the candidate's kernel arguments differ from the reference's; both must be the "
        "workload's inputs then outputs";
    return r;
  }
  runner::RunRequest request;
  request.set_workload_key(dag.workload_key());
  request.set_seed(kInputSeed);
  ArgSpecsToProto(candidate.args, request.mutable_args());
  *request.mutable_reference() = KernelObjectToProto(reference.object);
  *request.mutable_candidate() = KernelObjectToProto(candidate.object);
  *request.mutable_measure() = MeasureOptionsToProto(options_);
  // Leave a fifth of the deadline for loading, checking and the reply.
  request.set_time_budget_s(options_.timeout_s * 0.8);
  request.set_slow_above_s(std::max(0.0, behind.slow_above_s));
  request.set_probe_above_s(std::max(0.0, behind.probe_above_s));
  request.set_contend_above_s(std::max(0.0, behind.contend_above_s));
  auto start = std::chrono::steady_clock::now();
  MeasureResult r = runner_.Run(request, options_.timeout_s, options_.reference_timeout_s);
  r.run_wall_ms = MillisSince(start);
  r.compile_ms = candidate.build_ms;
  return r;
}

}  // namespace tuneforge::measure
