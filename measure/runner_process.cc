#include "measure/runner_process.h"

#include <signal.h>
#include <sys/wait.h>

#include <new>

#include "absl/strings/str_cat.h"
#include "measure/measure_proto.h"

namespace tuneforge::measure {

MeasureResult DiedWhileRunning(int wait_status, const char* what) {
  if (WIFSIGNALED(wait_status)) {
    int sig = WTERMSIG(wait_status);
    // We only send SIGKILL on a deadline, which is handled before; a SIGKILL
    // from elsewhere is the kernel's out-of-memory killer.
    if (sig == SIGKILL)
      return MeasureResult::Failure(MeasureErrorKind::kOutOfMemory,
                  absl::StrCat("the runner was killed by SIGKILL while running ", what,
                               ", most likely by the system's out-of-memory killer"));
    return MeasureResult::Failure(MeasureErrorKind::kRuntimeCrash,
                absl::StrCat(what, " crashed with ", SignalName(sig)));
  }
  return MeasureResult::Failure(MeasureErrorKind::kRunnerError,
              absl::StrCat("the runner exited with status ",
                           WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1, " while running ", what));
}

MeasureResult MeasureFailedWith(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return MeasureResult::Failure(MeasureErrorKind::kOutOfMemory,
                                  "the runner ran out of memory; use smaller shapes or raise the memory limit");
  return MeasureResult::Failure(MeasureErrorKind::kRunnerError, absl::StrCat("runner failure: ", e.what()));
}

MeasureResult RunnerProcess::ChildDied(bool started, bool in_reference) {
  int status = child_.Stop();
  if (!started)  // no kernel ran yet: the runner itself failed
    return MeasureResult::Failure(
        MeasureErrorKind::kRunnerError,
        absl::StrCat("the runner died before running a kernel (",
                     DescribeExit(status),
                     "); it will be restarted"));
  return DiedWhileRunning(status, in_reference ? "the reference (unscheduled) kernel" : "the kernel");
}

MeasureResult RunnerProcess::Run(const runner::RunRequest& request, double timeout_s,
                                 double reference_timeout_s) {
  Message message;
  *message.mutable_run_request() = request;
  // A runner that died while idle (or was never started) is replaced and
  // the request sent once more: no kernel of it has run yet, so a retry is
  // safe. A death after a kernel started is that kernel's result.
  for (int attempt = 0;; ++attempt) {
    const bool may_retry = attempt == 0;
    if (!child_.running()) {
      if (absl::Status s = child_.Start(); !s.ok())
        return MeasureResult::Failure(MeasureErrorKind::kRunnerError, std::string(s.message()));
    }
    if (absl::Status sent = child_.Send(message); !sent.ok()) {
      child_.Stop();
      if (may_retry) continue;
      return MeasureResult::Failure(MeasureErrorKind::kRunnerError,
                  absl::StrCat("cannot send the candidate to the runner: ", sent.message()));
    }
    bool died_before_kernel = false;
    MeasureResult reply = AwaitReply(timeout_s, reference_timeout_s, &died_before_kernel);
    if (died_before_kernel && may_retry) continue;
    return reply;
  }
}

MeasureResult RunnerProcess::AwaitReply(double timeout_s, double reference_timeout_s,
                                   bool* died_before_kernel) {
  bool started = false, in_reference = false;
  double budget = timeout_s;
  Deadline deadline = After(budget);
  for (;;) {
    absl::StatusOr<Message> message = child_.Receive(deadline);
    if (message.ok()) {
      if (message->has_phase()) {
        started = true;
        in_reference = message->phase().kind() == runner::Phase::REFERENCE;
        budget = in_reference ? reference_timeout_s : timeout_s;
        deadline = After(budget);
        continue;
      }
      if (message->has_run_reply()) {
        absl::StatusOr<MeasureResult> reply = MeasureResultFromProto(message->run_reply());
        if (reply.ok()) return *std::move(reply);
        child_.Stop();
        return MeasureResult::Failure(MeasureErrorKind::kRunnerError,
                    absl::StrCat("the runner's reply is malformed (", reply.status().message(),
                                 "); it was restarted"));
      }
      child_.Stop();
      return MeasureResult::Failure(MeasureErrorKind::kRunnerError,
                  "the runner sent an unexpected message; it was restarted");
    }
    if (absl::IsDeadlineExceeded(message.status())) {
      child_.Kill();
      return MeasureResult::Failure(MeasureErrorKind::kTimeout,
                  absl::StrCat(in_reference ? "the reference (unscheduled) kernel" : "the kernel",
                               " did not finish within ", budget, " s (",
                               in_reference ? "reference_timeout_s" : "timeout_s",
                               "); the runner was killed"));
    }
    if (absl::IsUnavailable(message.status())) {
      *died_before_kernel = !started;
      return ChildDied(started, in_reference);
    }
    child_.Stop();
    return MeasureResult::Failure(MeasureErrorKind::kRunnerError,
                absl::StrCat("talking to the runner failed: ", message.status().message()));
  }
}

}  // namespace tuneforge::measure
