// build/bin/tuneforge-server run as a child process, as a user would: its
// stdout is read for the ready line, its stderr kept for error checks.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tuneforge::server::testing {

// $TF_BIN_DIR/tuneforge-server (ctest sets TF_BIN_DIR).
std::string ServerBinary();

class ServerProcess {
 public:
  static absl::StatusOr<std::unique_ptr<ServerProcess>> Spawn(const std::vector<std::string>& args);
  // Kills (SIGKILL) a child still running.
  ~ServerProcess();

  // The first stdout line, within `timeout`; an error when the process
  // exits or stays silent.
  absl::StatusOr<std::string> ReadLine(absl::Duration timeout);
  void Signal(int signal_number);
  // The exit code (128 + N for a death by signal N); an error on timeout.
  absl::StatusOr<int> WaitExit(absl::Duration timeout);
  // Everything it wrote to stderr (complete once it exited).
  std::string Stderr();

 private:
  ServerProcess() = default;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  bool exited_ = false;
  std::string stdout_buffer_;
  std::string stderr_text_;
};

// The port in a ready line "tuneforge-server listening on 127.0.0.1:PORT, ..."; 0 if none.
int PortOfReadyLine(const std::string& line);

// Runs the binary to its end (it must fail at startup): exit code and stderr.
struct Finished {
  int exit_code = -1;
  std::string stderr_text;
};
absl::StatusOr<Finished> RunToExit(const std::vector<std::string>& args, absl::Duration timeout);

}  // namespace tuneforge::server::testing
