#include "tests/worker_agent/worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include "absl/time/clock.h"
#include "tests/support/removed_at_exit.h"

extern char** environ;

namespace tuneforge::worker::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/tf_worker_agent_XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) return "/tmp";
  test_support::RemoveAtExit(buf.data());
  return buf.data();
}

}  // namespace

std::string WorkerBinary() {
  if (const char* dir = std::getenv("TF_BIN_DIR"); dir && *dir)
    return std::string(dir) + "/tuneforge-worker";
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string path(self, n > 0 ? static_cast<size_t>(n) : 0);
  return path.substr(0, path.rfind('/')) + "/tuneforge-worker";
}

std::string WriteTempFile(const std::string& name, const std::string& text) {
  std::string path = TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

WorkerProcess::WorkerProcess(const std::vector<std::string>& args) {
  const std::string dir = TempDir();
  out_path_ = dir + "/stdout";
  err_path_ = dir + "/stderr";
  const std::string binary = WorkerBinary();
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "TUNEFORGE_TOKEN=", 16) != 0) envp.push_back(*e);
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  if (posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), envp.data()) != 0)
    pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0 && !exit_) {
    kill(pid_, SIGKILL);
    Wait(absl::Seconds(10));
  }
}

void WorkerProcess::Signal(int sig) {
  if (pid_ > 0 && !exit_) kill(pid_, sig);
}

std::optional<int> WorkerProcess::Wait(absl::Duration timeout) {
  if (exit_ || pid_ <= 0) return exit_;
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_;
    }
    if (absl::Now() >= deadline) return std::nullopt;
    absl::SleepFor(absl::Milliseconds(20));
  }
}

std::string WorkerProcess::Stdout() const { return ReadFile(out_path_); }
std::string WorkerProcess::Stderr() const { return ReadFile(err_path_); }

}  // namespace tuneforge::worker::testing
