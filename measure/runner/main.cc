// tuneforge-runner: the child process a Measurer starts to run kernels in
// isolation, and a BuilderPool to compile in (measure/runner_service.h).
// Not meant to be run by hand:
//   tuneforge-runner --in-fd=N --out-fd=N [--memory-limit-bytes=N] [--parent-pid=N]
//                    [--role=runner|builder]
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "measure/runner_service.h"

namespace {

bool ParseFlag(std::string_view arg, std::string_view name, long long* value) {
  if (arg.substr(0, name.size()) != name) return false;
  std::string text(arg.substr(name.size()));
  char* end = nullptr;
  *value = std::strtoll(text.c_str(), &end, 10);
  return end != nullptr && *end == '\0' && !text.empty();
}

// Ends this process when the parent dies (this process is then re-parented),
// even while a kernel loops forever.
void WatchParent(pid_t parent) {
  std::thread([parent] {
    for (;;) {
      if (getppid() != parent) _exit(3);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }).detach();
}

}  // namespace

int main(int argc, char** argv) {
  long long in_fd = -1, out_fd = -1, memory_limit = 0, parent = 0;
  bool builder = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--role=builder" || a == "--role=runner") {
      builder = a == "--role=builder";
      continue;
    }
    if (!ParseFlag(a, "--in-fd=", &in_fd) && !ParseFlag(a, "--out-fd=", &out_fd) &&
        !ParseFlag(a, "--memory-limit-bytes=", &memory_limit) &&
        !ParseFlag(a, "--parent-pid=", &parent)) {
      std::fprintf(stderr,
                   "tuneforge-runner: unknown argument '%s'; this program is started by "
                   "tuneforge itself, not by hand\n",
                   argv[i]);
      return 2;
    }
  }
  if (in_fd < 0 || out_fd < 0) {
    std::fprintf(stderr, "tuneforge-runner: --in-fd and --out-fd are required\n");
    return 2;
  }
  if (memory_limit > 0) {
    // A kernel's runaway allocation then fails (the kernel returns 1) instead
    // of exhausting the machine.
    struct rlimit limit = {static_cast<rlim_t>(memory_limit), static_cast<rlim_t>(memory_limit)};
    setrlimit(RLIMIT_AS, &limit);
    setrlimit(RLIMIT_DATA, &limit);
  }
  if (parent > 0) WatchParent(static_cast<pid_t>(parent));
  // Named apart from the kernel runners in ps (and in tests that look for a
  // busy runner).
  if (builder) prctl(PR_SET_NAME, "tf-builder");
  return tuneforge::measure::ServeRunner(static_cast<int>(in_fd), static_cast<int>(out_fd), builder);
}
