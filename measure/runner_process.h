// The parent's handle on one tuneforge-runner child process: started with
// posix_spawn on first use, talked to over two pipes (protocol.h), killed
// on a deadline, and started again after it dies. Whatever the child does,
// Run returns a reply: a crash or hang costs the one request.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <exception>
#include <string>

#include "measure/child_process.h"
#include "measure/measure_types.h"
#include "measure/protocol.h"

namespace tuneforge::measure {

using RunnerConfig = ChildConfig;

// The result for a process that ended (`wait_status`) while running `what`
// ("the kernel", ...): a crash by its signal, SIGKILL as the out-of-memory
// killer's (deadlines are handled before), an exit as a runner error. A
// runner and a runner's watched child (watched_child.h) name it alike.
MeasureResult DiedWhileRunning(int wait_status, const char* what);
// The result for an exception thrown while measuring: out of memory for
// std::bad_alloc, else a runner error with its message.
MeasureResult MeasureFailedWith(const std::exception& e);

class RunnerProcess {
 public:
  explicit RunnerProcess(RunnerConfig config) : child_(std::move(config)) {}
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  // `timeout_s` bounds the candidate (check + timing); `reference_timeout_s`
  // the reference computation when the runner reports it runs one. The
  // result's compile_ms and run_wall_ms are the caller's to fill.
  MeasureResult Run(const runner::RunRequest& request, double timeout_s, double reference_timeout_s);

  int starts() const { return child_.starts(); }  // child processes started so far
  pid_t pid() const { return child_.pid(); }      // the live child, or -1

 private:
  // Reads phases and the reply under the deadlines; kills the child on a
  // deadline. `died_before_kernel`: the child closed its pipe before
  // reporting any phase.
  MeasureResult AwaitReply(double timeout_s, double reference_timeout_s, bool* died_before_kernel);
  // The reply for a child that closed its pipe: how it ended, and whether a
  // kernel (`started`) and which one was running.
  MeasureResult ChildDied(bool started, bool in_reference);

  ChildProcess child_;
};

}  // namespace tuneforge::measure
