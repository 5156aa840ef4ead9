// The tuneforge-worker binary as a child process, for the tests that need a
// real process: signals, exit codes, what it prints.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace tuneforge::worker::testing {

// build/bin/tuneforge-worker ($TF_BIN_DIR, else next to the test binary).
std::string WorkerBinary();

// Writes `text` to a new file in a fresh temporary directory; returns its path.
std::string WriteTempFile(const std::string& name, const std::string& text);

class WorkerProcess {
 public:
  // Starts the binary with `args`; TUNEFORGE_TOKEN is removed from its
  // environment so only the arguments give it a token.
  explicit WorkerProcess(const std::vector<std::string>& args);
  ~WorkerProcess();  // SIGKILL if still running

  bool started() const { return pid_ > 0; }
  void Signal(int sig);
  // The exit status (exit code, or 128 + signal) once it ended, nullopt if
  // it still runs after `timeout`.
  std::optional<int> Wait(absl::Duration timeout);
  std::string Stdout() const;
  std::string Stderr() const;

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_;
  std::string out_path_, err_path_;
};

}  // namespace tuneforge::worker::testing
