#include "measure/runner_service.h"

#include <algorithm>
#include <chrono>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <new>

#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"
#include "common/runtime/parallel.h"
#include "measure/build_service.h"
#include "measure/protocol.h"
#include "measure/timing.h"
#include "measure/workload_buffers.h"

namespace tuneforge::measure {
namespace {

RunReply Fail(MeasureErrorKind kind, std::string error) {
  RunReply r;
  r.error_kind = kind;
  r.error = std::move(error);
  return r;
}

// A kernel's crash must end this process with its signal, so the parent can
// name it; libraries (LLVM) may have installed handlers of their own.
void RestoreDefaultCrashSignals() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) signal(sig, SIG_DFL);
}

absl::StatusOr<std::unique_ptr<codegen::LoadedKernel>> Load(const KernelBlob& blob) {
  codegen::CompiledObject object;
  object.symbol = blob.symbol;
  object.triple = blob.triple;
  object.object = blob.object;
  auto kernel = codegen::LoadObject(object);
  RestoreDefaultCrashSignals();
  return kernel;
}

class RunnerService {
 public:
  explicit RunnerService(int out_fd) : out_fd_(out_fd) {}

  RunReply Handle(const RunRequest& request) {
    try {
      return HandleUnguarded(request);
    } catch (const std::bad_alloc&) {
      return Fail(MeasureErrorKind::kOutOfMemory,
                  "the runner ran out of memory; use smaller shapes or raise the memory limit");
    } catch (const std::exception& e) {
      return Fail(MeasureErrorKind::kRunnerError, absl::StrCat("runner failure: ", e.what()));
    }
  }

 private:
  RunReply HandleUnguarded(const RunRequest& request) {
    SetThreads(request.threads);
    if (absl::Status s = CheckArgs(request.args); !s.ok())
      return Fail(MeasureErrorKind::kRunnerError, std::string(s.message()));
    absl::StatusOr<WorkloadBuffers*> buffers =
        cache_.Get(request.workload_key, request.seed, request.args);
    if (!buffers.ok())
      return Fail(absl::IsResourceExhausted(buffers.status()) ? MeasureErrorKind::kOutOfMemory
                                                              : MeasureErrorKind::kRunnerError,
                  std::string(buffers.status().message()));
    WorkloadBuffers& w = **buffers;
    if (!w.reference_ready) {
      RunReply failure;
      if (!ComputeReference(request, w, failure)) return failure;
    }
    WriteMessage(out_fd_, PhaseMessage{RunPhase::kCandidate}).IgnoreError();
    auto kernel = Load(request.candidate);
    if (!kernel.ok())
      return Fail(MeasureErrorKind::kCompileError,
                  absl::StrCat("loading the kernel object failed: ", kernel.status().message()));
    auto start = std::chrono::steady_clock::now();
    RunReply reply = Check(**kernel, w);
    if (reply.error_kind != MeasureErrorKind::kNone) return reply;
    double check_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Time(**kernel, w, request, check_s, reply);
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

  bool ComputeReference(const RunRequest& request, WorkloadBuffers& w, RunReply& failure) {
    WriteMessage(out_fd_, PhaseMessage{RunPhase::kReference}).IgnoreError();
    auto kernel = Load(request.reference);
    if (!kernel.ok()) {
      failure =
          Fail(MeasureErrorKind::kRunnerError,
               absl::StrCat("loading the reference kernel failed: ", kernel.status().message()));
      return false;
    }
    std::vector<void*> args = w.ReferenceArgs();
    if (int32_t code = (**kernel)(args.data()); code != 0) {
      failure = Fail(MeasureErrorKind::kOutOfMemory,
                     absl::StrCat("the reference kernel returned ", code,
                                  ": a temporary allocation failed; raise the memory limit"));
      return false;
    }
    if (std::string changed = w.ChangedInput(); !changed.empty()) {
      cache_.Drop(w.key);
      failure = Fail(MeasureErrorKind::kRunnerError,
                     absl::StrCat("the reference kernel wrote into input '", changed, "'"));
      return false;
    }
    w.reference_ready = true;
    return true;
  }

  // One run on poisoned outputs, then every output against the reference.
  RunReply Check(const codegen::LoadedKernel& kernel, WorkloadBuffers& w) {
    w.PoisonOutputs();
    std::vector<void*> args = w.CandidateArgs();
    if (int32_t code = kernel(args.data()); code != 0)
      return Fail(MeasureErrorKind::kOutOfMemory,
                  absl::StrCat("the kernel returned ", code,
                               ": a temporary allocation failed under the memory limit"));
    if (std::string changed = w.ChangedInput(); !changed.empty()) {
      cache_.Drop(w.key);  // the inputs are no longer the seed's
      return Fail(MeasureErrorKind::kWrongAnswer,
                  absl::StrCat("the kernel wrote into its input '", changed, "'"));
    }
    RunReply reply;
    reply.correct = true;
    const size_t num_inputs = w.inputs.size();
    for (size_t i = 0; i < w.outputs.size(); ++i) {
      absl::StatusOr<te::CompareResult> c = te::Compare(w.outputs[i], w.reference_outputs[i]);
      if (!c.ok()) return Fail(MeasureErrorKind::kRunnerError, std::string(c.status().message()));
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

  // Repeats that fit the time budget after the check run, which took
  // check_s: 0 means even one repeat does not fit.
  static int RepeatsWithinBudget(const RunRequest& request, double check_s) {
    if (request.time_budget_s <= 0) return request.repeat;
    double per_repeat = std::max(check_s * std::max(1, request.number), request.min_repeat_ms / 1e3);
    // Calibration costs about one more repeat.
    double fit = (request.time_budget_s - check_s) / per_repeat - 1;
    return static_cast<int>(std::clamp(fit, 0.0, static_cast<double>(request.repeat)));
  }

  void Time(const codegen::LoadedKernel& kernel, WorkloadBuffers& w, const RunRequest& request,
            double check_s, RunReply& reply) {
    int repeat = RepeatsWithinBudget(request, check_s);
    if (repeat == 0) {
      // Too slow to time within the deadline: its one (checked) run is the
      // measurement, enough to rank it far behind the fast ones.
      reply.number = 1;
      reply.repeat_seconds = {check_s};
      reply.median_seconds = check_s;
      reply.timed_ms = check_s * 1e3;
      return;
    }
    CacheFlusher* flusher = nullptr;
    if (request.flush_cache) {
      if (!flusher_) flusher_ = std::make_unique<CacheFlusher>();
      if (!flusher_->Flush()) {
        reply.error_kind = MeasureErrorKind::kOutOfMemory;
        reply.error = absl::StrCat("cannot allocate the ", flusher_->bytes(),
                                   "-byte cache-flush buffer; raise the memory limit");
        return;
      }
      flusher = flusher_.get();
    }
    std::vector<void*> args = w.CandidateArgs();
    TimingOptions options{request.number, repeat, request.min_repeat_ms, request.flush_cache};
    TimingResult t = TimeKernel([&] { return kernel(args.data()); }, options, flusher);
    reply.number = t.number;
    reply.repeat_seconds = std::move(t.repeat_seconds);
    reply.median_seconds = t.median_seconds;
    reply.timed_ms = t.timed_ms;
    if (t.failed_code != 0) {
      reply.error_kind = MeasureErrorKind::kOutOfMemory;
      reply.error = absl::StrCat("the kernel returned ", t.failed_code,
                                 " while being timed: a temporary allocation failed");
    }
  }

  int out_fd_;
  WorkloadCache cache_;
  std::unique_ptr<CacheFlusher> flusher_;
  int threads_ = -1;
};

}  // namespace

int ServeRunner(int in_fd, int out_fd, bool builder) {
  RestoreDefaultCrashSignals();
  if (!WriteMessage(out_fd, HelloMessage{kProtocolVersion, static_cast<int32_t>(getpid())}).ok())
    return 0;
  RunnerService service(out_fd);
  for (;;) {
    absl::StatusOr<Message> message = ReadMessage(in_fd, std::nullopt);
    if (!message.ok()) return absl::IsUnavailable(message.status()) ? 0 : 2;
    absl::Status written;
    if (const auto* run = std::get_if<RunRequest>(&*message); run && !builder) {
      written = WriteMessage(out_fd, service.Handle(*run));
    } else if (const auto* build = std::get_if<BuildRequest>(&*message); build && builder) {
      BuildReply reply;
      try {
        reply = ServeBuild(*build);
      } catch (const std::exception& e) {  // a bug in lowering or codegen costs this build only
        reply.error_kind = MeasureErrorKind::kCompileError;
        reply.error = absl::StrCat("build failed: ", e.what());
      }
      written = WriteMessage(out_fd, reply);
    } else {
      return 2;
    }
    if (!written.ok()) return 0;
  }
}

}  // namespace tuneforge::measure
