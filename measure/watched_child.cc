#include "measure/watched_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <exception>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/runtime/parallel.h"
#include "measure/child_process.h"
#include "measure/measure_proto.h"
#include "measure/protocol.h"
#include "measure/runner_process.h"

namespace tuneforge::measure {
namespace {

int Reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

absl::Status SendMark(int fd) {
  Message mark;
  mark.mutable_phase()->set_kind(runner::Phase::CANDIDATE);
  return WriteMessage(fd, mark);
}

[[noreturn]] void ServeChild(int fd, const std::function<MeasureResult(const CheckedRunHooks&)>& measure) {
  // Dies with the runner (which its parent kills on a deadline).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  runtime::RestartAfterFork();
  MeasureResult result;
  try {  // nothing may unwind into the runner's loop: this is its copy
    result = measure({.started = [fd] { SendMark(fd).IgnoreError(); },
                      .ran = [fd] { SendMark(fd).IgnoreError(); }});
  } catch (const std::exception& e) {
    result = MeasureFailedWith(e);
  }
  Message reply;
  *reply.mutable_run_reply() = MeasureResultToProto(result);
  WriteMessage(fd, reply).IgnoreError();
  _exit(0);  // no exit handlers: they belong to the runner
}

}  // namespace

MeasureResult MeasureInWatchedChild(double stop_s,
                                    const std::function<MeasureResult(const CheckedRunHooks&)>& measure) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return measure({});
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return measure({});
  }
  if (pid == 0) {
    close(fds[0]);
    ServeChild(fds[1], measure);
  }
  close(fds[1]);
  const int fd = fds[0];
  // The run's start; then its end, by the stopping time (the runner's own
  // deadline bounds the rest).
  absl::StatusOr<Message> message = ReadMessage(fd, std::nullopt);
  if (message.ok() && message->has_phase()) message = ReadMessage(fd, After(stop_s));
  if (absl::IsDeadlineExceeded(message.status())) {
    kill(pid, SIGKILL);
    Reap(pid);
    close(fd);
    return MeasureResult::Failure(
        MeasureErrorKind::kTimeout,
        absl::StrFormat("stopped: its checked run was still going %.0f ms after it began, the time at which "
                        "candidates far behind the best so far are stopped",
                        stop_s * 1e3));
  }
  // Ran in time: its timing goes on.
  if (message.ok() && message->has_phase()) message = ReadMessage(fd, std::nullopt);
  close(fd);
  // Closed without a reply: it died.
  if (absl::IsUnavailable(message.status())) return DiedWhileRunning(Reap(pid), "the kernel");
  if (!message.ok() || !message->has_run_reply()) {
    kill(pid, SIGKILL);
    Reap(pid);
    return MeasureResult::Failure(MeasureErrorKind::kRunnerError,
                                  absl::StrCat("the runner's measuring child sent no result (",
                                               message.ok() ? "an unexpected message" : message.status().message(),
                                               ")"));
  }
  Reap(pid);
  absl::StatusOr<MeasureResult> result = MeasureResultFromProto(message->run_reply());
  if (!result.ok())
    return MeasureResult::Failure(MeasureErrorKind::kRunnerError,
                                  absl::StrCat("the runner's measuring child replied with a malformed result: ",
                                               result.status().message()));
  return *std::move(result);
}

}  // namespace tuneforge::measure
