// The kernel runners of a worker seen from outside, through /proc: the
// failure tests find a busy runner and crash it as a faulting kernel would.
#pragma once

#include <sys/types.h>

#include "absl/time/time.h"

namespace tuneforge::service_test {

// What shows that a busy runner is timing a kernel, not starting up.
enum class KernelSign {
  // Its CPU time grows: enough for a native runner, which starts in
  // milliseconds and JIT-loads kernels into anonymous memory.
  kBusy,
  // Busy and a kernel's shared object is mapped (a board runner loads each
  // kernel from a memory file, "/memfd:<symbol>" in its maps). An emulated
  // runner is busy for a while as it starts; crashing it then is a runner
  // failure, retried, not a kernel's crash.
  kBusyWithSharedObject,
};

// Waits, up to `within`, for a kernel runner under `worker` (a
// tuneforge-runner child started with --role=runner, also under an
// emulator; not a builder) that shows `sign`, and sends it SIGSEGV, as a
// faulting kernel would end it. False when none was found.
bool SegfaultABusyRunner(pid_t worker, absl::Duration within, KernelSign sign = KernelSign::kBusy);

}  // namespace tuneforge::service_test
