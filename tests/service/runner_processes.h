// The kernel runners of a worker seen from outside, through /proc: the
// failure tests find a busy runner and crash it as a faulting kernel would.
#pragma once

#include <sys/types.h>

#include "absl/time/time.h"

namespace tuneforge::service_test {

// Waits, up to `within`, for a kernel runner under `worker` (a
// tuneforge-runner child started with --role=runner, also under an
// emulator; not a builder) whose CPU time grows, and sends it SIGSEGV, as a
// faulting kernel would end it. False when none was found busy.
bool SegfaultABusyRunner(pid_t worker, absl::Duration within);

}  // namespace tuneforge::service_test
