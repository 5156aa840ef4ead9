#include "tests/service/runner_processes.h"

#include <dirent.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/time/clock.h"

namespace tuneforge::service_test {
namespace {

std::vector<pid_t> RunnerChildren(pid_t parent) {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  if (!proc) return out;
  while (dirent* e = readdir(proc)) {
    pid_t pid = static_cast<pid_t>(std::atol(e->d_name));
    if (pid <= 0) continue;
    std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    std::getline(stat, line);
    // pid (comm) state ppid ...
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid != parent) continue;
    std::ifstream cmdline(std::string("/proc/") + e->d_name + "/cmdline");
    std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (args.find("tuneforge-runner") != std::string::npos && args.find("--role=runner") != std::string::npos)
      out.push_back(pid);
  }
  closedir(proc);
  return out;
}

std::optional<long> CpuTicks(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return std::nullopt;
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::atol(field.c_str());
    if (i == 15) stime = std::atol(field.c_str());
  }
  return utime + stime;
}

bool MapsASharedObjectFromMemory(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("/memfd:") != std::string::npos) return true;
  return false;
}

}  // namespace

bool SegfaultABusyRunner(pid_t worker, absl::Duration within, KernelSign sign) {
  for (absl::Time deadline = absl::Now() + within; absl::Now() < deadline;) {
    for (pid_t runner : RunnerChildren(worker)) {
      std::optional<long> before = CpuTicks(runner);
      absl::SleepFor(absl::Milliseconds(300));
      std::optional<long> after = CpuTicks(runner);
      const bool busy = before && after && *after - *before >= 10;
      const bool shows_sign =
          busy && (sign == KernelSign::kBusy || MapsASharedObjectFromMemory(runner));
      if (shows_sign && kill(runner, SIGSEGV) == 0) return true;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

}  // namespace tuneforge::service_test
