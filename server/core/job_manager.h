// JobManager: jobs from submission to completion. Each running job has a
// search policy per workload (JobSearch); rounds of candidates go to the
// Dispatcher as persisted tasks; results come back through ResultSink and
// update the job's progress, best record and watchers (job_progress.h).
// Jobs and their progress live in the RecordStore, so a restarted server
// resumes every unfinished job (job_restore.h). One search thread runs the
// rounds of every job (job_search_loop.cc), outside the RPC threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "search/task_scheduler/task_scheduler.h"
#include "server/core/dispatcher.h"
#include "server/core/service_constants.h"
#include "server/domain/job.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

struct JobManagerOptions {
  // How a job tuning several workloads shares each round among them.
  search::TaskSchedulerKind task_scheduler = search::TaskSchedulerKind::kRoundRobin;
  // The pause before a final comparison that ran at a busy moment is run
  // again, doubled for each further one (retiming.h): a shared machine's
  // slow spells last seconds, and comparisons back to back fell in one.
  absl::Duration compare_again_after = kCompareAgainAfter;
};

struct JobUpdate {
  JobProgress progress;
  uint64_t version = 0;  // pass back to wait for the next change
  bool finished = false;  // done, failed or cancelled: no more updates
};

class JobManager : public ResultSink {
 public:
  // Loads the store's jobs and resumes the unfinished ones.
  static absl::StatusOr<std::unique_ptr<JobManager>> Create(RecordStore* store, Dispatcher* dispatcher,
                                                           JobManagerOptions options = {});
  ~JobManager() override = default;

  // Validates the spec (every workload parses, trials >= 1, a device key,
  // a known policy, sane measure options): INVALID_ARGUMENT naming the
  // field ("spec.workloads[1].spec: unknown op 'matmull' ...").
  virtual absl::StatusOr<Job> Submit(const JobSpec& spec) = 0;
  // NOT_FOUND for an unknown id.
  virtual absl::StatusOr<Job> Get(const std::string& id) const = 0;
  // Cancelling a finished job is FAILED_PRECONDITION.
  virtual absl::StatusOr<Job> Cancel(const std::string& id) = 0;
  virtual std::vector<Job> List(JobState state, int limit) const = 0;  // kUnspecified: all
  // The job's state now if it changed after `after_version` (0: at once),
  // else waits up to `timeout` for a change.
  virtual absl::StatusOr<JobUpdate> WaitForUpdate(const std::string& id, uint64_t after_version,
                                                  absl::Duration timeout) const = 0;

  virtual void Shutdown() = 0;
};

}  // namespace tuneforge::server
