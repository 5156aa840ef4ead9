// The job manager's state behind its lock. Its methods live in one file per
// question: job_manager.cc (the API: submit, get, cancel, list, watch, and
// what results do to a job), job_search_loop.cc (when a job's next round
// starts and how its tasks reach the dispatcher).
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/core/cost_models.h"
#include "server/core/job_manager.h"
#include "server/core/job_runtime.h"
#include "server/core/job_search.h"

namespace tuneforge::server {

class JobManagerImpl : public JobManager {
 public:
  JobManagerImpl(RecordStore* store, Dispatcher* dispatcher, JobManagerOptions options)
      : store_(store),
        dispatcher_(dispatcher),
        cost_models_(store),
        search_(store, &cost_models_, options.task_scheduler, options.compare_again_after) {}
  ~JobManagerImpl() override { Shutdown(); }

  // Loads the store's jobs, resumes the unfinished ones, starts the search thread.
  absl::Status Resume();

  absl::StatusOr<Job> Submit(const JobSpec& spec) override;
  absl::StatusOr<Job> Get(const std::string& id) const override;
  absl::StatusOr<Job> Cancel(const std::string& id) override;
  std::vector<Job> List(JobState state, int limit) const override;
  absl::StatusOr<JobUpdate> WaitForUpdate(const std::string& id, uint64_t after_version,
                                          absl::Duration timeout) const override;
  void OnResults(const std::vector<MeasuredResult>& results) override;
  void Shutdown() override;

 private:
  static absl::Status Unknown(const std::string& id);
  JobRuntime* Find(const std::string& id) const;

  // The search thread: feeds results back to the policies and starts the
  // next round of a job once its previous round is measured.
  void SearchLoop();
  // Called with the lock held; releases it while proposing and persisting.
  void NextRound(JobRuntime* rt, std::unique_lock<std::mutex>& lock);
  // Persists the jobs changed since last saved (outside the lock).
  void SaveDirty();

  RecordStore* store_;
  Dispatcher* dispatcher_;
  CostModels cost_models_;  // one per device key, shared by the jobs on it
  JobSearch search_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  // Held from reading a job's totals to applying them (OnResults): two
  // reports at once must not apply an older read over a newer one.
  std::mutex totals_mu_;
  std::map<std::string, std::unique_ptr<JobRuntime>> jobs_;
  bool stopping_ = false;
  std::thread search_thread_;
};

}  // namespace tuneforge::server
