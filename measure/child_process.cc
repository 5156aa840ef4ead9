#include "measure/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace tuneforge::measure {
namespace {

// Fixed descriptor numbers of the pipes in the child.
constexpr int kChildInFd = 3;
constexpr int kChildOutFd = 4;
// Loading LLVM and starting threads takes well under a second; allow for a
// loaded machine.
constexpr double kStartTimeoutS = 30;

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Moves a descriptor to a number >= 10 (close-on-exec), so the child's
// dup2 onto 3 and 4 can neither clobber it nor be a no-op that keeps
// close-on-exec set.
int MoveHigh(int fd) {
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return high;
}

}  // namespace

Deadline After(double seconds) {
  using Clock = std::chrono::steady_clock;
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string SignalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV (segmentation fault)";
    case SIGBUS:
      return "SIGBUS (bus error)";
    case SIGFPE:
      return "SIGFPE (arithmetic exception)";
    case SIGILL:
      return "SIGILL (illegal instruction)";
    case SIGABRT:
      return "SIGABRT (abort)";
    case SIGKILL:
      return "SIGKILL (killed)";
    case SIGTERM:
      return "SIGTERM (terminated)";
    case SIGTRAP:
      return "SIGTRAP (trap)";
    case SIGSYS:
      return "SIGSYS (bad system call)";
    case SIGXCPU:
      return "SIGXCPU (CPU time limit)";
    default:
      return absl::StrCat("signal ", sig);
  }
}

std::string DescribeExit(int wait_status) {
  if (WIFSIGNALED(wait_status)) return SignalName(WTERMSIG(wait_status));
  return absl::StrCat("exit status ", WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1);
}

absl::Status ChildProcess::Start() {
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0)
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", std::strerror(errno)));
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", std::strerror(errno)));
  }
  int child_in = MoveHigh(to_child[0]), child_out = MoveHigh(from_child[1]);
  to_child_ = to_child[1];
  from_child_ = from_child[0];

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, child_in, kChildInFd);
  posix_spawn_file_actions_adddup2(&actions, child_out, kChildOutFd);
  // The child starts with default signal handling and nothing blocked, so a
  // crash ends it with the signal, whatever this process has set up.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT})
    sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> args = {
      config_.path,
      absl::StrCat("--in-fd=", kChildInFd),
      absl::StrCat("--out-fd=", kChildOutFd),
      absl::StrCat("--memory-limit-bytes=", config_.memory_limit_bytes),
      absl::StrCat("--parent-pid=", getpid()),
      config_.role == ChildRole::kBuilder ? "--role=builder" : "--role=runner",
  };
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int err = posix_spawn(&pid, config_.path.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(child_in);
  close(child_out);
  if (err != 0) {
    CloseFd(to_child_);
    CloseFd(from_child_);
    return absl::UnavailableError(absl::StrCat("cannot start the runner '", config_.path,
                                               "': ", std::strerror(err),
                                               "; build the tuneforge-runner target or set "
                                               "TUNEFORGE_RUNNER to its path"));
  }
  pid_ = pid;
  ++starts_;
  absl::StatusOr<Message> hello = ReadMessage(from_child_, After(kStartTimeoutS));
  const runner::Hello* h = hello.ok() && hello->has_hello() ? &hello->hello() : nullptr;
  if (h == nullptr || h->version() != kProtocolVersion) {
    int status = Stop();
    std::string why = !hello.ok()    ? std::string(hello.status().message())
                      : h == nullptr ? "it sent an unexpected message"
                                     : absl::StrCat("it speaks protocol version ", h->version(),
                                                    ", this program ", kProtocolVersion);
    if (WIFEXITED(status)) absl::StrAppend(&why, " (exit status ", WEXITSTATUS(status), ")");
    return absl::UnavailableError(absl::StrCat("the runner '", config_.path,
                                               "' did not start: ", why,
                                               "; rebuild tuneforge-runner with this program"));
  }
  return absl::OkStatus();
}

int ChildProcess::Stop() {
  CloseFd(to_child_);
  CloseFd(from_child_);
  if (pid_ <= 0) return 0;
  int status = 0;
  // A child that closed its pipe is exiting on its own: give it a moment, so
  // its real exit status (the crash signal) is what we see.
  for (int i = 0; i < 100; ++i) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) {
      pid_ = -1;
      return status;
    }
    if (i == 0) continue;  // one immediate retry before sleeping
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGKILL);
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return status;
}

void ChildProcess::Kill() {
  if (pid_ > 0) kill(pid_, SIGKILL);
  Stop();
}

}  // namespace tuneforge::measure
