#include "bench/peer_process.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "bench/peers/onednn.h"
#include "bench/peers/openblas_sgemm.h"

extern char** environ;

namespace tuneforge::bench {
namespace {

std::vector<char*> CleanEnvironment(std::vector<std::string>* storage) {
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "OPENBLAS_CORETYPE=", 18) == 0) continue;
    if (std::strncmp(*e, "OPENBLAS_L2_SIZE=", 17) == 0) continue;
    storage->push_back(*e);
  }
  std::vector<char*> out;
  for (std::string& s : *storage) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::optional<PeerResult> RunPeer(const std::string& self, const std::vector<std::string>& args) {
  std::vector<std::string> argv_storage = {self, "--peer"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage;
  std::vector<char*> env = CleanEnvironment(&env_storage);

  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  pid_t pid;
  int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    std::cerr << "bench: cannot start peer process: " << std::strerror(rc) << "\n";
    return std::nullopt;
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) out.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  PeerResult r;
  char note[256] = "";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      std::sscanf(out.c_str(), "seconds=%lf note=%255s", &r.seconds, note) < 1) {
    std::cerr << "bench: peer " << args[0] << " failed: " << out << "\n";
    return std::nullopt;
  }
  r.note = note;
  return r;
}

int PeerMain(const std::vector<std::string>& args) {
  auto arg = [&](size_t i) { return i < args.size() ? std::stoi(args[i]) : 0; };
  if (args.empty()) return 2;
  const std::string& name = args[0];
  double s = 0;
  std::string note = "-";
  if (name == "openblas_sgemm") {
    s = TimeOpenBlasSgemm(arg(1), arg(2), arg(3), arg(4));
    note = OpenBlasCoreName();
  } else if (name == "onednn_matmul") {
    s = TimeOneDnnMatmul(arg(1), arg(2), arg(3), arg(4));
  } else if (name == "onednn_conv2d" || name == "onednn_conv2d_winograd" || name == "onednn_depthwise") {
    ConvShape shape{arg(1), arg(2), arg(3), arg(4), arg(5), arg(6), arg(7), arg(8), arg(9)};
    s = name == "onednn_conv2d"            ? TimeOneDnnConv2d(shape, arg(10))
        : name == "onednn_conv2d_winograd" ? TimeOneDnnWinogradConv2d(shape, arg(10))
                                           : TimeOneDnnDepthwiseConv2d(shape, arg(10));
    if (s <= 0) {
      std::cerr << name << ": oneDNN has no implementation for this shape on this machine\n";
      return 1;
    }
  } else {
    std::cerr << "unknown peer " << name << "\n";
    return 2;
  }
  std::printf("seconds=%.9g note=%s\n", s, note.c_str());
  return 0;
}

}  // namespace tuneforge::bench
