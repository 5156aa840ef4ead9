// The loop of the tuneforge-runner process: for each RunRequest, compute
// the workload's reference outputs (once), run the candidate once and
// compare, then time it; answer with its MeasureResult. A kernel that crashes or
// hangs takes this process down; the parent notices and starts a new one.
// A BuildRequest is compiled instead (build_service.h): the same binary
// serves as the builder processes of a BuilderPool.
#pragma once

namespace tuneforge::measure {

// Serves requests from in_fd, replies on out_fd, until in_fd closes: run
// requests, or with `builder` build requests (the other kind is a protocol
// error). Returns the process exit code: 0 on a clean end, 2 on a protocol
// error.
int ServeRunner(int in_fd, int out_fd, bool builder = false);

}  // namespace tuneforge::measure
