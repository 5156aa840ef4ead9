#include "measure/builder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/codegen/cuda/cuda_compile.h"
#include "common/lower/lower.h"
#include "common/lower/stmt_functor.h"
#include "common/millis_since.h"
#include "common/schedule/gpu_binding.h"
#include "common/schedule/state.h"
#include "common/te/ndarray.h"

namespace tuneforge::measure {
namespace {

// A lowered program this large takes LLVM many seconds (about 1 ms per
// statement) to compile and would hold
// a worker's builder that long: such a candidate is refused before code
// generation. The expert schedules lower to under 100 statements.
constexpr int64_t kMaxLoweredStmts = 8192;
// Threads per block of the naive GPU program (what TVM's default schedule uses).
constexpr int64_t kNaiveGpuThreads = 256;

BuiltKernel Compile(const te::ComputeDag& dag, const lower::LoweredFunc& func,
                    const codegen::Target& target, const codegen::CompileOptions& options = {}) {
  absl::StatusOr<std::vector<ArgSpec>> args = KernelArgs(dag, func);
  if (!args.ok())
    return BuiltKernel::Failed(MeasureErrorKind::kLowerError, std::string(args.status().message()));
  absl::StatusOr<codegen::CompiledObject> object =
      target.gpu ? codegen::CompileForGpu(func, *target.gpu) : codegen::CompileToObject(func, target, options);
  if (!object.ok())
    return BuiltKernel::Failed(MeasureErrorKind::kCompileError, std::string(object.status().message()));
  BuiltKernel k;
  k.object = *std::move(object);
  k.args = *std::move(args);
  return k;
}

}  // namespace

absl::StatusOr<std::vector<ArgSpec>> KernelArgs(const te::ComputeDag& dag,
                                                const lower::LoweredFunc& func) {
  const std::vector<int> ops = dag.ArgumentOps();
  const size_t num_inputs = dag.InputOps().size();
  if (func.args.size() != ops.size() + func.num_packed)
    return absl::InternalError(absl::StrCat("kernel '", func.name, "' takes ", func.args.size(),
                                            " buffers but the workload has ", num_inputs,
                                            " inputs and ", ops.size() - num_inputs, " outputs and ",
                                            func.num_packed,
                                            " packed constants; lowering must pass exactly those"));
  std::vector<ArgSpec> specs;
  for (size_t i = 0; i < ops.size(); ++i) {
    const te::Tensor& op = dag.op(ops[i]);
    const te::Buffer& buf = func.args[i];
    if (!buf || buf->dtype != op->dtype || buf->shape != op->shape)
      return absl::InternalError(absl::StrCat(
          "kernel argument ", i, " is ",
          buf ? absl::StrCat(te::ToString(buf->dtype), te::ShapeToString(buf->shape)) : "null",
          " but the workload's ", i < num_inputs ? "input" : "output", " '", op->name, "' is ",
          te::ToString(op->dtype), te::ShapeToString(op->shape)));
    if (!buf->strides.empty() && buf->strides != buf->dense_strides())
      return absl::InternalError(absl::StrCat("kernel argument ", i, " ('", op->name,
                                              "') has padded strides; arguments must be dense"));
    specs.push_back(ArgSpec{op->name, op->dtype, op->shape, i >= num_inputs});
  }
  return specs;
}

BuiltKernel BuildLowered(const te::ComputeDag& dag, const lower::LoweredFunc& func,
                         const codegen::Target& target) {
  auto start = std::chrono::steady_clock::now();
  BuiltKernel k = Compile(dag, func, target);
  k.build_ms = MillisSince(start);
  return k;
}

BuiltKernel BuildSchedule(const te::ComputeDagPtr& dag, const std::vector<schedule::Step>& steps,
                          const codegen::Target& target, const codegen::CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  BuiltKernel k = [&] {
    absl::StatusOr<schedule::State> state = schedule::State::Replay(dag, steps);
    if (!state.ok())
      return BuiltKernel::Failed(MeasureErrorKind::kInvalidSchedule, std::string(state.status().message()));
    // On a GPU the unscheduled program runs bound naively to threads: the
    // reference every candidate is checked against on the same device.
    if (target.gpu && steps.empty())
      state = schedule::BindNaiveForGpu(*state, std::min<int64_t>(kNaiveGpuThreads,
                                                                  target.gpu->limits.max_threads_per_block));
    if (!state.ok()) return BuiltKernel::Failed(MeasureErrorKind::kLowerError, std::string(state.status().message()));
    lower::LowerOptions lower_options = lower::LowerOptions::ForTarget(target.gpu.has_value());
    if (!target.gpu) lower_options.register_lanes = target.vector_lanes(4);
    absl::StatusOr<lower::LoweredFunc> func = lower::Lower(*state, lower_options);
    if (!func.ok())
      return BuiltKernel::Failed(MeasureErrorKind::kLowerError, std::string(func.status().message()));
    if (int64_t n = lower::CountStmts(func->body); n > kMaxLoweredStmts)
      return BuiltKernel::Failed(MeasureErrorKind::kLowerError,
                                 absl::StrCat("the lowered program has ", n, " statements (limit ",
                                              kMaxLoweredStmts,
                                              "): unrolling made it too large to compile; unroll smaller "
                                              "loops or lower auto_unroll_max_step"));
    return Compile(*dag, *func, target, options);
  }();
  k.build_ms = MillisSince(start);
  return k;
}

std::vector<BuiltKernel> BuildParallel(int n, int jobs,
                                       const std::function<BuiltKernel(int)>& build) {
  std::vector<BuiltKernel> out(std::max(n, 0));
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::min(jobs, n);
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int i; (i = next.fetch_add(1)) < n;) {
      // Nothing a candidate does may escape into the others (or the caller).
      try {
        out[i] = build(i);
      } catch (const std::exception& e) {
        out[i] = BuiltKernel::Failed(MeasureErrorKind::kCompileError, absl::StrCat("build failed: ", e.what()));
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  return out;
}

std::vector<BuiltKernel> BuildSchedules(const te::ComputeDagPtr& dag,
                                        const std::vector<std::vector<schedule::Step>>& candidates,
                                        const codegen::Target& target, int jobs,
                                        const codegen::CompileOptions& options) {
  return BuildParallel(static_cast<int>(candidates.size()), jobs,
                       [&](int i) { return BuildSchedule(dag, candidates[i], target, options); });
}

}  // namespace tuneforge::measure
