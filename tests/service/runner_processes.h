// The kernel runners of a worker seen from outside, through /proc: the
// failure tests find a busy runner and crash it as a faulting kernel would.
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

namespace tuneforge::service_test {

// The kernel runners among the children of `parent` (the worker's
// sandbox): processes whose command line runs tuneforge-runner with
// --role=runner (also under an emulator), not the builder processes
// (--role=builder) that compile in the same binary.
std::vector<pid_t> RunnerChildren(pid_t parent);

// CPU ticks (user + system) the process has used; nullopt once it is gone.
std::optional<long> CpuTicks(pid_t pid);

}  // namespace tuneforge::service_test
