#include "tests/service/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace tuneforge::service_test {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Tail(const std::string& text, size_t max_bytes) {
  return text.size() <= max_bytes ? text : "..." + text.substr(text.size() - max_bytes);
}

// The environment without the variables in `unset`, built before fork
// (only async-signal-safe calls are allowed between fork and exec).
std::vector<std::string> FilteredEnvironment(const std::vector<std::string>& unset) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    if (std::find(unset.begin(), unset.end(), name) == unset.end()) env.push_back(entry);
  }
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int OpenOutput(const std::string& path) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void ExecChild(pid_t parent, int out_fd, int err_fd, char** argv, char** envp) {
  // Die with the parent thread; if the parent is already gone, go now.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(126);
  // Own process group, so cleanup can kill the child and its children.
  setpgid(0, 0);
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  // Sockets and files of the test process stay out of the child.
  syscall(SYS_close_range, 3u, ~0u, 0u);
  execve(argv[0], argv, envp);
  const char msg[] = "child_process: exec failed\n";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
  (void)ignored;
  _exit(127);
}

}  // namespace

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return absl::StrCat("exit ", WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) return absl::StrCat("signal ", WTERMSIG(wait_status));
  return absl::StrCat("wait status ", wait_status);
}

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(const ChildOptions& options) {
  if (options.argv.empty()) return absl::InvalidArgumentError("ChildProcess: empty argv");
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->stdout_path_ = options.stdout_path;
  child->stderr_path_ = options.stderr_path.empty() ? options.stdout_path : options.stderr_path;
  int out_fd = OpenOutput(child->stdout_path_);
  int err_fd = options.stderr_path.empty() ? out_fd : OpenOutput(child->stderr_path_);
  if (out_fd < 0 || err_fd < 0) {
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0 && err_fd != out_fd) close(err_fd);
    return absl::InternalError(absl::StrCat("cannot open output files for ", options.argv[0]));
  }
  std::vector<std::string> args = options.argv;
  std::vector<std::string> env = FilteredEnvironment(options.unset_env);
  std::vector<char*> argv = CStrings(args);
  std::vector<char*> envp = CStrings(env);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) ExecChild(parent, out_fd, err_fd, argv.data(), envp.data());
  int fork_errno = errno;
  close(out_fd);
  if (err_fd != out_fd) close(err_fd);
  if (pid < 0) return absl::InternalError(absl::StrCat("fork failed: ", std::strerror(fork_errno)));
  // Also set the group from here: the child may not have run yet when the
  // destructor wants to kill the group.
  setpgid(pid, pid);
  child->pid_ = pid;
  return child;
}

ChildProcess::~ChildProcess() { KillAndReap(); }

bool ChildProcess::Running() {
  if (wait_status_) return false;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    wait_status_ = status;
    return false;
  }
  return r == 0;
}

void ChildProcess::Signal(int signal) {
  if (Running()) kill(pid_, signal);
}

std::optional<int> ChildProcess::Wait(absl::Duration timeout) {
  absl::Time end = absl::Now() + timeout;
  while (Running()) {
    if (absl::Now() >= end) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return wait_status_;
}

void ChildProcess::KillAndReap() {
  if (pid_ <= 0) return;
  // The group too: a runner left behind by its worker must not outlive the
  // test. Once only: afterwards the group id may name nothing of ours.
  if (!group_killed_) kill(-pid_, SIGKILL);
  group_killed_ = true;
  if (!Running()) return;
  kill(pid_, SIGKILL);
  int status = 0;
  if (waitpid(pid_, &status, 0) == pid_) wait_status_ = status;
}

std::string ChildProcess::Stdout() const { return ReadFile(stdout_path_); }

std::string ChildProcess::Stderr() const {
  return stderr_path_ == stdout_path_ ? std::string() : ReadFile(stderr_path_);
}

absl::StatusOr<std::string> ChildProcess::WaitForOutput(const std::regex& pattern,
                                                        absl::Duration timeout) {
  absl::Time end = absl::Now() + timeout;
  while (true) {
    std::string text = Stdout() + Stderr();
    std::smatch match;
    if (std::regex_search(text, match, pattern)) return match.size() > 1 ? match[1].str() : match[0].str();
    if (!Running())
      return absl::FailedPreconditionError(absl::StrCat("process ", pid_, " ended (",
                                                        DescribeWaitStatus(*wait_status_),
                                                        ") before printing what was expected; output:\n",
                                                        OutputTail()));
    if (absl::Now() >= end)
      return absl::DeadlineExceededError(absl::StrCat("process ", pid_, " did not print what was expected in ",
                                                      absl::FormatDuration(timeout), "; output:\n",
                                                      OutputTail()));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string ChildProcess::OutputTail(size_t max_bytes) const {
  std::string err = Stderr();
  return err.empty() ? Tail(Stdout(), max_bytes)
                     : absl::StrCat("[stdout] ", Tail(Stdout(), max_bytes / 2), "\n[stderr] ",
                                    Tail(err, max_bytes / 2));
}

}  // namespace tuneforge::service_test
