#include "measure/runner_service.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"
#include "common/codegen/packed_constants.h"
#include "common/runtime/parallel.h"
#include "measure/build_service.h"
#include "measure/gpu_runner.h"
#include "measure/measure_proto.h"
#include "measure/protocol.h"
#include "measure/runner_process.h"
#include "measure/timing.h"
#include "measure/watched_child.h"
#include "measure/workload_buffers.h"

namespace tuneforge::measure {
namespace {

// A kernel's crash must end this process with its signal, so the parent can
// name it; libraries (LLVM) may have installed handlers of their own.
void RestoreDefaultCrashSignals() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) signal(sig, SIG_DFL);
}

absl::StatusOr<std::unique_ptr<codegen::LoadedKernel>> Load(const codegen::CompiledObject& object) {
  auto kernel = codegen::LoadObject(object);
  RestoreDefaultCrashSignals();
  return kernel;
}

// A GPU failure as a measurement error: a kernel fault crashed the context,
// the GPU's memory ran out, a launch the GPU refused, or the machinery.
MeasureErrorKind GpuErrorKind(const absl::Status& s) {
  if (absl::IsAborted(s)) return MeasureErrorKind::kRuntimeCrash;
  if (absl::IsResourceExhausted(s)) return MeasureErrorKind::kOutOfMemory;
  if (absl::IsInvalidArgument(s)) return MeasureErrorKind::kCompileError;
  return MeasureErrorKind::kRunnerError;
}

absl::Status SendPhase(int fd, runner::Phase::Kind kind) {
  Message m;
  m.mutable_phase()->set_kind(kind);
  return WriteMessage(fd, m);
}

// What the runner works from: the request's arguments, and its options as
// the measurer resolved them (a zero here means zero: min_repeat_ms 0 is no
// calibration, not the default).
struct RunSpec {
  std::vector<ArgSpec> args;
  MeasureOptions options;
  double time_budget_s = 0;
  BehindBest behind;  // RunRequest.slow_above_s, probe_above_s and contend_above_s
};

MeasureOptions ResolvedOptions(const v1::MeasureOptions& proto) {
  MeasureOptions zero;
  zero.number = 0;
  zero.repeat = 0;
  zero.min_repeat_ms = 0;
  zero.timeout_s = 0;
  return MeasureOptionsFromProto(proto, zero);
}

class RunnerService {
 public:
  explicit RunnerService(int out_fd) : out_fd_(out_fd) {}

  // After a GPU kernel fault the context is unusable: the process ends once
  // it has reported the fault, and its parent starts a fresh one.
  bool must_exit() const { return gpu_ && gpu_->broken(); }

  MeasureResult Handle(const runner::RunRequest& request) {
    try {
      return HandleUnguarded(request);
    } catch (const std::exception& e) {
      return MeasureFailedWith(e);
    }
  }

 private:
  MeasureResult HandleUnguarded(const runner::RunRequest& request) {
    absl::StatusOr<std::vector<ArgSpec>> args = ArgSpecsFromProto(request.args());
    if (!args.ok()) return MeasureResult::Failure(MeasureErrorKind::kRunnerError, std::string(args.status().message()));
    const RunSpec spec{*std::move(args), ResolvedOptions(request.measure()), request.time_budget_s(),
                       {.slow_above_s = request.slow_above_s(),
                        .probe_above_s = request.probe_above_s(),
                        .contend_above_s = request.contend_above_s()}};
    SetThreads(spec.options.threads);
    if (absl::Status s = CheckArgs(spec.args); !s.ok())
      return MeasureResult::Failure(MeasureErrorKind::kRunnerError, std::string(s.message()));
    absl::StatusOr<WorkloadBuffers*> buffers =
        cache_.Get(request.workload_key(), request.seed(), spec.args);
    if (!buffers.ok())
      return MeasureResult::Failure(absl::IsResourceExhausted(buffers.status()) ? MeasureErrorKind::kOutOfMemory
                                                              : MeasureErrorKind::kRunnerError,
                  std::string(buffers.status().message()));
    WorkloadBuffers& w = **buffers;
    if (!w.reference_ready) {
      MeasureResult failure;
      if (!ComputeReference(request.reference(), w, failure)) return failure;
    }
    SendPhase(out_fd_, runner::Phase::CANDIDATE).IgnoreError();
    const codegen::CompiledObject candidate = KernelObjectFromProto(request.candidate());
    if (candidate.is_gpu()) return MeasureOnGpu(candidate, w, spec);
    auto kernel = Load(candidate);
    if (!kernel.ok())
      return MeasureResult::Failure(MeasureErrorKind::kCompileError,
                  absl::StrCat("loading the kernel object failed: ", kernel.status().message()));
    // Layout rewrite: the constants are packed once, untimed, like a model
    // does at load time.
    absl::StatusOr<codegen::PackedConstants> packed = codegen::PackedConstants::Prepare(
        **kernel, candidate.packed_args, w.CandidateArgs());
    if (!packed.ok())
      return MeasureResult::Failure(absl::IsResourceExhausted(packed.status()) ? MeasureErrorKind::kOutOfMemory
                                                                               : MeasureErrorKind::kRunnerError,
                                    std::string(packed.status().message()));
    const double stop_s = StopAfterSeconds(spec.behind.slow_above_s);
    if (stop_s <= 0) return CheckAndTime(**kernel, w, *packed, spec, {});
    // Far behind the best it is stopped: measured in a child.
    if (spec.options.flush_cache && !flusher_) flusher_ = std::make_unique<CacheFlusher>();  // made once, here
    return MeasureInWatchedChild(stop_s, [&](const CheckedRunHooks& hooks) {
      return CheckAndTime(**kernel, w, *packed, spec, hooks);
    });
  }

  // The checked run, then the timing.
  MeasureResult CheckAndTime(const codegen::LoadedKernel& kernel, WorkloadBuffers& w,
                             codegen::PackedConstants& packed, const RunSpec& spec,
                             const CheckedRunHooks& hooks) {
    double check_s = 0;
    MeasureResult reply = Check(kernel, w, packed, hooks, &check_s);
    if (reply.error_kind != MeasureErrorKind::kNone) return reply;
    Time(kernel, w, packed, spec, check_s, reply);
    return reply;
  }

  static absl::Status CheckArgs(const std::vector<ArgSpec>& args) {
    bool seen_output = false;
    for (const ArgSpec& a : args) {
      if (!a.is_output && seen_output)
        return absl::InvalidArgumentError(absl::StrCat("argument ", ToString(a),
                                                       " is an input after an output; "
                                                       "kernels take inputs first"));
      seen_output |= a.is_output;
    }
    if (!seen_output) return absl::InvalidArgumentError("the kernel has no output argument");
    return absl::OkStatus();
  }

  void SetThreads(int requested) {
    int want = requested > 0 ? requested : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    if (want != threads_) runtime::SetNumThreads(want);
    threads_ = want;
  }

  // The GPU of this runner, opened at its first GPU program.
  absl::StatusOr<GpuRunner*> Gpu() {
    if (!gpu_) {
      absl::StatusOr<std::unique_ptr<GpuRunner>> opened = GpuRunner::Open();
      if (!opened.ok()) return opened.status();
      gpu_ = *std::move(opened);
    }
    return gpu_.get();
  }

  // The GPU path: device copies of the buffers, one checked run, then
  // repeats timed with events (the same budget rules as on a CPU).
  MeasureResult MeasureOnGpu(const codegen::CompiledObject& candidate, WorkloadBuffers& w, const RunSpec& spec) {
    absl::StatusOr<GpuRunner*> gpu = Gpu();
    if (!gpu.ok()) return MeasureResult::Failure(MeasureErrorKind::kRunnerError, std::string(gpu.status().message()));
    auto failure = [](const absl::Status& s) { return MeasureResult::Failure(GpuErrorKind(s), std::string(s.message())); };
    if (absl::Status s = (*gpu)->Bind(w); !s.ok()) return failure(s);
    absl::StatusOr<std::unique_ptr<GpuProgram>> program = (*gpu)->Load(candidate);
    if (!program.ok()) return failure(program.status());
    absl::StatusOr<double> check_s = (*gpu)->RunAndFetch(**program, w.outputs);
    if (!check_s.ok()) return failure(check_s.status());
    MeasureResult reply = CompareOutputs(w);
    if (reply.error_kind != MeasureErrorKind::kNone) return reply;
    const int repeat = RepeatsWithinBudget(spec, *check_s);
    const double verdict_s =
        repeat > 0 ? SlowVerdictSeconds(*check_s, spec.behind.slow_above_s, [&](const TimingOptions& warm) {
          absl::StatusOr<TimingResult> t = (*gpu)->Time(**program, warm);
          return t.ok() ? std::optional<TimingResult>(*std::move(t)) : std::nullopt;
        })
                   : *check_s;
    if (CheckRunIsTheMeasurement(spec, verdict_s, repeat, reply)) return reply;
    TimingOptions timing = spec.options;
    timing.repeat = repeat;
    absl::StatusOr<TimingResult> t = (*gpu)->Time(**program, timing);
    if (!t.ok()) return failure(t.status());
    CopyTiming(*std::move(t), reply);
    return reply;
  }

  // The reference of a GPU workload: its naive program on the same GPU.
  bool ComputeReferenceOnGpu(const codegen::CompiledObject& object, WorkloadBuffers& w, MeasureResult& failure) {
    if (absl::Status s = RunReferenceOnGpu(object, w); !s.ok()) {
      failure = MeasureResult::Failure(MeasureErrorKind::kRunnerError,
                                       absl::StrCat("the reference (naive) GPU program: ", s.message()));
      return false;
    }
    w.reference_ready = true;
    return true;
  }

  absl::Status RunReferenceOnGpu(const codegen::CompiledObject& object, WorkloadBuffers& w) {
    absl::StatusOr<GpuRunner*> gpu = Gpu();
    if (!gpu.ok()) return gpu.status();
    if (absl::Status s = (*gpu)->Bind(w); !s.ok()) return s;
    absl::StatusOr<std::unique_ptr<GpuProgram>> program = (*gpu)->Load(object);
    if (!program.ok()) return program.status();
    return (*gpu)->RunAndFetch(**program, w.reference_outputs).status();
  }

  bool ComputeReference(const v1::BuiltKernel& reference, WorkloadBuffers& w, MeasureResult& failure) {
    SendPhase(out_fd_, runner::Phase::REFERENCE).IgnoreError();
    const codegen::CompiledObject object = KernelObjectFromProto(reference);
    if (object.is_gpu()) return ComputeReferenceOnGpu(object, w, failure);
    auto kernel = Load(object);
    if (!kernel.ok()) {
      failure =
          MeasureResult::Failure(MeasureErrorKind::kRunnerError,
               absl::StrCat("loading the reference kernel failed: ", kernel.status().message()));
      return false;
    }
    absl::StatusOr<codegen::PackedConstants> packed = codegen::PackedConstants::Prepare(
        **kernel, object.packed_args, w.ReferenceArgs());
    if (!packed.ok()) {
      failure = MeasureResult::Failure(MeasureErrorKind::kRunnerError,
                                       absl::StrCat("the reference kernel: ", packed.status().message()));
      return false;
    }
    std::vector<void*> args = packed->Append(w.ReferenceArgs());
    if (int32_t code = (**kernel)(args.data()); code != 0) {
      failure = MeasureResult::Failure(MeasureErrorKind::kOutOfMemory,
                     absl::StrCat("the reference kernel returned ", code,
                                  ": a temporary allocation failed; raise the memory limit"));
      return false;
    }
    if (std::string changed = w.ChangedInput(); !changed.empty()) {
      cache_.Drop(w.key);
      failure = MeasureResult::Failure(MeasureErrorKind::kRunnerError,
                     absl::StrCat("the reference kernel wrote into input '", changed, "'"));
      return false;
    }
    w.reference_ready = true;
    return true;
  }

  // One run on poisoned outputs (its time, the kernel's alone, in run_s),
  // then every output against the reference.
  MeasureResult Check(const codegen::LoadedKernel& kernel, WorkloadBuffers& w, codegen::PackedConstants& packed,
                      const CheckedRunHooks& hooks, double* run_s) {
    w.PoisonOutputs();
    std::vector<void*> args = packed.Append(w.CandidateArgs());
    if (hooks.started) hooks.started();
    const auto start = std::chrono::steady_clock::now();
    const int32_t returned = kernel(args.data());
    *run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (hooks.ran) hooks.ran();
    if (int32_t code = returned; code != 0)
      return MeasureResult::Failure(MeasureErrorKind::kOutOfMemory,
                  absl::StrCat("the kernel returned ", code,
                               ": a temporary allocation failed under the memory limit"));
    if (std::string changed = w.ChangedInput(); !changed.empty()) {
      cache_.Drop(w.key);  // the inputs are no longer the seed's
      return MeasureResult::Failure(MeasureErrorKind::kWrongAnswer,
                  absl::StrCat("the kernel wrote into its input '", changed, "'"));
    }
    return CompareOutputs(w);
  }

  // Every candidate output against the reference's.
  static MeasureResult CompareOutputs(const WorkloadBuffers& w) {
    MeasureResult reply;
    reply.correct = true;
    const size_t num_inputs = w.inputs.size();
    for (size_t i = 0; i < w.outputs.size(); ++i) {
      absl::StatusOr<te::CompareResult> c = te::Compare(w.outputs[i], w.reference_outputs[i]);
      if (!c.ok()) return MeasureResult::Failure(MeasureErrorKind::kRunnerError, std::string(c.status().message()));
      reply.max_abs_error = std::max(reply.max_abs_error, c->max_abs_error);
      reply.max_rel_error = std::max(reply.max_rel_error, c->max_rel_error);
      if (!c->ok && reply.correct) {
        reply.correct = false;
        reply.error_kind = MeasureErrorKind::kWrongAnswer;
        reply.error = absl::StrCat("output '", w.specs[num_inputs + i].name, "': ", c->Summary());
      }
    }
    return reply;
  }

  // A candidate too slow to time within the deadline, or far slower than
  // the job's best (by `verdict_s`, SlowVerdictSeconds): that one time is the
  // measurement, enough to rank it far behind the fast ones. Sets the reply
  // and says so.
  static bool CheckRunIsTheMeasurement(const RunSpec& spec, double verdict_s, int repeat, MeasureResult& reply) {
    if (repeat > 0 && (spec.behind.slow_above_s <= 0 || verdict_s <= spec.behind.slow_above_s)) return false;
    reply.number = 1;
    reply.repeat_seconds = {verdict_s};
    reply.median_seconds = verdict_s;
    reply.timed_ms = verdict_s * 1e3;
    return true;
  }

  static void CopyTiming(TimingResult&& t, MeasureResult& reply) {
    reply.number = t.number;
    reply.repeat_seconds = std::move(t.repeat_seconds);
    reply.median_seconds = t.median_seconds;
    reply.timed_ms = t.timed_ms;
  }

  // Repeats that fit the time budget after the check run, which took
  // check_s: 0 means even one repeat does not fit.
  static int RepeatsWithinBudget(const RunSpec& spec, double check_s) {
    const TimingOptions& t = spec.options;
    if (spec.time_budget_s <= 0) return t.repeat;
    double per_repeat = std::max(check_s * std::max(1, t.number), t.min_repeat_ms / 1e3);
    // Calibration costs about one more repeat.
    double fit = (spec.time_budget_s - check_s) / per_repeat - 1;
    return static_cast<int>(std::clamp(fit, 0.0, static_cast<double>(t.repeat)));
  }

  void Time(const codegen::LoadedKernel& kernel, WorkloadBuffers& w, codegen::PackedConstants& packed,
            const RunSpec& spec, double check_s, MeasureResult& reply) {
    const int repeat = RepeatsWithinBudget(spec, check_s);
    CacheFlusher* flusher = nullptr;
    TimingOptions timing = spec.options;
    timing.repeat = repeat;
    if (timing.flush_cache && repeat > 0) {
      if (!flusher_) flusher_ = std::make_unique<CacheFlusher>();
      if (!flusher_->Flush()) {
        reply.error_kind = MeasureErrorKind::kOutOfMemory;
        reply.error = absl::StrCat("cannot allocate the ", flusher_->bytes(),
                                   "-byte cache-flush buffer; raise the memory limit");
        return;
      }
      flusher = flusher_.get();
    }
    std::vector<void*> args = packed.Append(w.CandidateArgs());
    auto run = [&] { return kernel(args.data()); };
    const double verdict_s =
        repeat > 0 ? SlowVerdictSeconds(check_s, spec.behind.slow_above_s, [&](const TimingOptions& warm) {
          return std::optional<TimingResult>(TimeKernel(run, warm, flusher));
        })
                   : check_s;
    if (CheckRunIsTheMeasurement(spec, verdict_s, repeat, reply)) return;
    TimingResult t = TimeKernel(run, timing, flusher, spec.behind);
    const int32_t failed_code = t.failed_code;
    CopyTiming(std::move(t), reply);
    if (failed_code != 0) {
      reply.error_kind = MeasureErrorKind::kOutOfMemory;
      reply.error = absl::StrCat("the kernel returned ", failed_code,
                                 " while being timed: a temporary allocation failed");
    }
  }

  int out_fd_;
  WorkloadCache cache_;
  std::unique_ptr<CacheFlusher> flusher_;
  std::unique_ptr<GpuRunner> gpu_;
  int threads_ = -1;
};

}  // namespace

int ServeRunner(int in_fd, int out_fd, bool builder) {
  RestoreDefaultCrashSignals();
  Message hello;
  hello.mutable_hello()->set_version(kProtocolVersion);
  hello.mutable_hello()->set_pid(static_cast<int32_t>(getpid()));
  if (!WriteMessage(out_fd, hello).ok()) return 0;
  RunnerService service(out_fd);
  for (;;) {
    absl::StatusOr<Message> message = ReadMessage(in_fd, std::nullopt);
    if (!message.ok()) return absl::IsUnavailable(message.status()) ? 0 : 2;
    Message reply;
    if (message->has_run_request() && !builder) {
      *reply.mutable_run_reply() = MeasureResultToProto(service.Handle(message->run_request()));
    } else if (message->has_build_request() && builder) {
      runner::BuildReply& built = *reply.mutable_build_reply();
      try {
        built = ServeBuild(message->build_request());
      } catch (const std::exception& e) {  // a bug in lowering or codegen costs this build only
        built.Clear();
        built.set_error_kind(ErrorKindToProto(MeasureErrorKind::kCompileError));
        built.set_error(absl::StrCat("build failed: ", e.what()));
      }
    } else {
      return 2;
    }
    if (!WriteMessage(out_fd, reply).ok()) return 0;
    if (service.must_exit()) return 0;
  }
}

}  // namespace tuneforge::measure
