// A real child process for the service tests (tuneforge-server,
// tuneforge-worker, the tuneforge CLI): started with fork/exec, its stdout
// and stderr going to files, killed and reaped by the destructor so a
// failing test never leaks one. The child also dies with the thread that
// started it (PR_SET_PDEATHSIG), so a test killed by ctest leaks nothing
// either: start children from the test's main thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tuneforge::service_test {

struct ChildOptions {
  std::vector<std::string> argv;  // argv[0] is the executable's path
  std::string stdout_path;        // appended to (the file is created)
  std::string stderr_path;        // "" : same file as stdout
  // Environment variables removed in the child (e.g. TUNEFORGE_TOKEN, so a
  // test of "no token" cannot pick one up from the caller's environment).
  std::vector<std::string> unset_env;
};

class ChildProcess {
 public:
  // Errors: the output files cannot be opened, fork fails. An executable
  // that cannot be run shows as exit code 127 with a message on stderr.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(const ChildOptions& options);
  ~ChildProcess();  // SIGKILL to the child's process group, then reaped
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // False once the child exited (and was reaped).
  bool Running();
  // Sends `signal` to the child only (not to its own children: a killed
  // worker's runner must go away by itself).
  void Signal(int signal);
  // Waits up to `timeout` for the child to exit; its wait status, or
  // nullopt if it is still running.
  std::optional<int> Wait(absl::Duration timeout);
  // SIGKILL to the process group and reap (no-op once exited).
  void KillAndReap();
  // The wait status once exited.
  std::optional<int> wait_status() const { return wait_status_; }

  std::string Stdout() const;
  std::string Stderr() const;
  // Waits until the output (stdout + stderr) matches `pattern`; returns the
  // first capture group (or the whole match). Errors: the child exited or
  // `timeout` passed first (the message carries the output's tail).
  absl::StatusOr<std::string> WaitForOutput(const std::regex& pattern, absl::Duration timeout);
  // The last `max_bytes` of stdout and stderr, for failure messages.
  std::string OutputTail(size_t max_bytes = 4000) const;

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  std::optional<int> wait_status_;
  bool group_killed_ = false;
  std::string stdout_path_;
  std::string stderr_path_;
};

// "exit 0", "exit 3", "signal 9": for messages.
std::string DescribeWaitStatus(int wait_status);

}  // namespace tuneforge::service_test
