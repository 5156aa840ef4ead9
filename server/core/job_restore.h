// A job that was queued or running when the server stopped: its progress
// comes back from its records, its search restarts without proposing what
// was measured or is pending, and its pending tasks go back to the
// dispatcher (held for the restart grace, so the workers that held them can
// report first).
#pragma once

#include "absl/status/status.h"
#include "server/core/dispatcher.h"
#include "server/core/job_runtime.h"
#include "server/core/job_search.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

absl::Status RestoreJob(RecordStore& store, JobSearch& search, Dispatcher& dispatcher, JobRuntime* rt);

}  // namespace tuneforge::server
