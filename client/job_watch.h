// Following a job to its end, as `watch` and `tune` do: one progress line
// per update that changed something, reconnecting when the server restarts
// (the job resumes there; its watch can resume here).
#pragma once

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "client/api/call_canceller.h"
#include "client/api/jobs_client.h"

namespace tuneforge::cli {

struct WatchOptions {
  std::ostream* progress = nullptr;  // where progress lines go; null: nowhere
  client::CallCanceller* canceller = nullptr;
  // How long to keep trying while the server cannot be reached.
  double reconnect_s = 60;
};

// The job in its final state (done, failed or cancelled). CANCELLED when
// the canceller fired first.
absl::StatusOr<v1::Job> WatchToEnd(client::JobsClient& jobs, const std::string& job_id,
                                   const WatchOptions& options);

}  // namespace tuneforge::cli
