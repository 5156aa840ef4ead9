// One tuneforge-runner child process as its parent sees it: started with
// posix_spawn (default signal handling, two pipes on fds 3 and 4, an
// address-space limit), greeted with a Hello of the same protocol version,
// spoken to in frames (protocol.h), and ended with SIGKILL when it must go.
// RunnerProcess (kernels) and BuilderProcess (compiles) each own one and add
// what their requests mean.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "measure/protocol.h"

namespace tuneforge::measure {

// What the child serves: kernels to run (RunRequest) or schedules to compile
// (BuildRequest); a builder names itself "tf-builder" in ps.
enum class ChildRole { kRunner, kBuilder };

struct ChildConfig {
  std::string path;                // the tuneforge-runner binary
  int64_t memory_limit_bytes = 0;  // RLIMIT_AS / RLIMIT_DATA of the child; 0: none
  ChildRole role = ChildRole::kRunner;
};

class ChildProcess {
 public:
  explicit ChildProcess(ChildConfig config) : config_(std::move(config)) {}
  ~ChildProcess() { Stop(); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Spawns the child and waits for its Hello. Errors name the binary and
  // the fix (build tuneforge-runner, set TUNEFORGE_RUNNER).
  absl::Status Start();
  // Ends the child (SIGKILL unless it exits on its own within a moment)
  // and returns its wait status; closes the pipes. 0 when none runs.
  int Stop();
  // SIGKILL now (a deadline passed), then Stop.
  void Kill();

  absl::Status Send(const Message& message) { return WriteMessage(to_child_, message); }
  // Errors as ReadMessage: DeadlineExceeded, Unavailable (the child closed
  // its pipe: it died), DataLoss.
  absl::StatusOr<Message> Receive(Deadline deadline) { return ReadMessage(from_child_, deadline); }

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  int starts() const { return starts_; }  // processes started so far
  const std::string& path() const { return config_.path; }

 private:
  ChildConfig config_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  int starts_ = 0;
};

// "SIGSEGV (segmentation fault)"; "signal 42" for others.
std::string SignalName(int sig);
// How a child ended, from its wait status: "SIGSEGV (segmentation fault)"
// or "exit status 3".
std::string DescribeExit(int wait_status);

Deadline After(double seconds);

}  // namespace tuneforge::measure
