// The parent's handle on one tuneforge-runner child process: started with
// posix_spawn on first use, talked to over two pipes (protocol.h), killed
// on a deadline, and started again after it dies. Whatever the child does,
// Run returns a reply: a crash or hang costs the one request.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "worker/measure/protocol.h"

namespace tuneforge::measure {

struct RunnerConfig {
  std::string path;                // the tuneforge-runner binary
  int64_t memory_limit_bytes = 0;  // RLIMIT_AS / RLIMIT_DATA of the child; 0: none
};

class RunnerProcess {
 public:
  explicit RunnerProcess(RunnerConfig config) : config_(std::move(config)) {}
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  // `timeout_s` bounds the candidate (check + timing); `reference_timeout_s`
  // the reference computation when the runner reports it runs one.
  RunReply Run(const RunRequest& request, double timeout_s, double reference_timeout_s);

  int starts() const { return starts_; }  // child processes started so far
  pid_t pid() const { return pid_; }      // the live child, or -1

 private:
  absl::Status Start();
  // Reads phases and the reply under the deadlines; kills the child on a
  // deadline. `died_before_kernel`: the child closed its pipe before
  // reporting any phase.
  RunReply AwaitReply(double timeout_s, double reference_timeout_s, bool* died_before_kernel);
  // Ends the child (SIGKILL unless it already exited) and returns its wait
  // status; closes the pipes.
  int Stop();
  // The reply for a child that closed its pipe: how it ended, and whether a
  // kernel (`started`) and which one was running.
  RunReply ChildDied(bool started, bool in_reference);

  RunnerConfig config_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  int starts_ = 0;
};

// "SIGSEGV (segmentation fault)"; "signal 42" for others.
std::string SignalName(int sig);

}  // namespace tuneforge::measure
