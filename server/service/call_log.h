// One stderr line per call, when the server runs with --verbose: method,
// status and latency, so a slow or refused call can be found in the log.
#pragma once

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace tuneforge::server {

// "Jobs.Submit OK 1.23 ms ipv4:127.0.0.1:50512" or, for a refusal,
// "Jobs.Get NOT_FOUND 0.12 ms ipv4:...: id: no job 'x'". Lines from
// concurrent calls do not interleave.
void LogCall(absl::string_view method, const absl::Status& status, absl::Duration latency,
             absl::string_view peer);

}  // namespace tuneforge::server
