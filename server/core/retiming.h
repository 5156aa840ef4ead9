// Re-timing: a program that measured fastest once may have been lucky (a
// quiet moment on a shared machine). After each round the job manager has
// the job's fastest programs that were timed only once timed again; the
// store merges the sessions (RecordStore::AddResults, retime_of), so a
// best is always a program timed at least twice once the job is done.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/core/service_constants.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

// How many of the fastest programs per workload the job re-times (spec
// retime_top: 0 is the default, -1 none).
int RetimeTop(const JobSpec& spec);

// The job's fastest `top` correct records of the workload, those of them
// timed once and not in `already_issued` (task ids of records whose
// re-timing was issued before: each is re-timed at most once, even when
// its re-timing was lost with a worker).
absl::StatusOr<std::vector<Record>> RecordsToRetime(RecordStore& store, const std::string& job_id,
                                                    const std::string& workload_key, int top,
                                                    const std::set<std::string>& already_issued);

}  // namespace tuneforge::server
