#include "tests/server/service/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace tuneforge::server::testing {

std::string ServerBinary() {
  const char* dir = std::getenv("TF_BIN_DIR");
  return absl::StrCat(dir && *dir ? dir : "build/bin", "/tuneforge-server");
}

absl::StatusOr<std::unique_ptr<ServerProcess>> ServerProcess::Spawn(const std::vector<std::string>& args) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::string binary = ServerBinary();
  std::vector<char*> argv;
  argv.push_back(binary.data());
  std::vector<std::string> copies = args;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::unique_ptr<ServerProcess> p(new ServerProcess());
  int rc = posix_spawn(&p->pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  p->stdout_fd_ = out[0];
  p->stderr_fd_ = err[0];
  if (rc != 0) {
    p->pid_ = -1;
    return absl::NotFoundError(absl::StrCat("cannot start ", binary, " (errno ", rc, "); build it first"));
  }
  return p;
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0 && !exited_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
  if (stderr_fd_ >= 0) close(stderr_fd_);
}

absl::StatusOr<std::string> ServerProcess::ReadLine(absl::Duration timeout) {
  absl::Time end = absl::Now() + timeout;
  while (true) {
    size_t newline = stdout_buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = stdout_buffer_.substr(0, newline);
      stdout_buffer_.erase(0, newline + 1);
      return line;
    }
    int left_ms = static_cast<int>(absl::ToInt64Milliseconds(end - absl::Now()));
    if (left_ms <= 0) return absl::DeadlineExceededError("no line on stdout in time; stderr: " + Stderr());
    pollfd fd{stdout_fd_, POLLIN, 0};
    if (poll(&fd, 1, left_ms) <= 0) continue;
    char buf[4096];
    ssize_t n = read(stdout_fd_, buf, sizeof(buf));
    if (n <= 0) return absl::AbortedError("the server closed stdout (exited?); stderr: " + Stderr());
    stdout_buffer_.append(buf, static_cast<size_t>(n));
  }
}

void ServerProcess::Signal(int signal_number) {
  if (pid_ > 0 && !exited_) kill(pid_, signal_number);
}

absl::StatusOr<int> ServerProcess::WaitExit(absl::Duration timeout) {
  absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError("the server did not exit in time");
}

std::string ServerProcess::Stderr() {
  // Non-blocking: take what is there now (all of it once the child exited).
  fcntl(stderr_fd_, F_SETFL, fcntl(stderr_fd_, F_GETFL) | O_NONBLOCK);
  char buf[4096];
  ssize_t n;
  while ((n = read(stderr_fd_, buf, sizeof(buf))) > 0) stderr_text_.append(buf, static_cast<size_t>(n));
  return stderr_text_;
}

int PortOfReadyLine(const std::string& line) {
  const std::string prefix = "tuneforge-server listening on ";
  if (line.rfind(prefix, 0) != 0) return 0;
  size_t colon = line.find(':', prefix.size());
  size_t comma = line.find(',', prefix.size());
  int port = 0;
  if (colon == std::string::npos || comma == std::string::npos || comma < colon) return 0;
  return absl::SimpleAtoi(line.substr(colon + 1, comma - colon - 1), &port) ? port : 0;
}

absl::StatusOr<Finished> RunToExit(const std::vector<std::string>& args, absl::Duration timeout) {
  absl::StatusOr<std::unique_ptr<ServerProcess>> p = ServerProcess::Spawn(args);
  if (!p.ok()) return p.status();
  absl::StatusOr<int> code = (*p)->WaitExit(timeout);
  if (!code.ok()) return absl::DeadlineExceededError("the server kept running; it should have refused to start");
  return Finished{*code, (*p)->Stderr()};
}

}  // namespace tuneforge::server::testing
