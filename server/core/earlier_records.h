// What the record store already holds of a job's workloads: a job goes on
// from it, as TVM's task scheduler goes on from a log file. A model tuned
// again into the same database, or a single op tuned after a model that has
// it, starts where the earlier jobs stopped: their programs are not measured
// again, the search seeds its evolution from their fastest, and the task
// scheduler sees each task's trials and best so far (no second warm-up of
// tasks that had theirs).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "search/search_policy.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

struct EarlierRecords {
  // Schedule texts of every record of the workload on the device: never
  // proposed again.
  std::vector<std::string> measured;
  // The fastest correct ones (at most kContinueFromFastest), fastest first.
  std::vector<search::MeasuredCandidate> fastest;
  // The fastest correct record another job offers (RecordStore::Best); 0:
  // none. A job's own records count through its totals.
  double best_seconds = 0;
};

// The workload's records on `device_key`, for job `job_id` (its own records
// are in `measured` and `fastest`, not in `best_seconds`).
absl::StatusOr<EarlierRecords> LoadEarlierRecords(RecordStore& store, const std::string& workload_key,
                                                  const std::string& device_key, const std::string& job_id);

}  // namespace tuneforge::server
