// When a job's next round starts and how its tasks reach the dispatcher:
// the search thread wakes every kSearchPollMs (or on a change), marks jobs
// running once a worker of their device key is there, and plans a round for
// every job whose last round is measured.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "server/core/job_manager_impl.h"
#include "server/core/job_progress.h"

namespace tuneforge::server {

void JobManagerImpl::SearchLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, std::chrono::milliseconds(kSearchPollMs));
    if (stopping_) break;
    std::vector<JobRuntime*> ready;
    for (auto& [id, rt] : jobs_) {
      if (rt->job.state == JobState::kQueued && dispatcher_->HasWorkerFor(rt->job.spec.device_key))
        MarkRunning(rt.get());
      if (rt->finished()) {
        rt->policies.clear();
        rt->feedback.clear();
      } else if (dispatcher_->Outstanding(id) == 0 &&
                 (!rt->compare_again_at || absl::Now() >= *rt->compare_again_at)) {
        ready.push_back(rt.get());
      }
    }
    for (JobRuntime* rt : ready) NextRound(rt, lock);
    lock.unlock();
    SaveDirty();
    lock.lock();
  }
}

void JobManagerImpl::NextRound(JobRuntime* rt, std::unique_lock<std::mutex>& lock) {
  std::vector<std::vector<search::MeasuredCandidate>> feedback(rt->policies.size());
  for (size_t i = 0; i < rt->policies.size(); ++i) feedback[i].swap(rt->feedback[i]);
  int want = static_cast<int>(std::min<int64_t>(rt->batch_size(), rt->job.trials_total - rt->issued));
  // Policies are only touched by this thread; the job cannot disappear.
  // Learning (features, retraining) and proposing take seconds: not under
  // the lock that RPCs need.
  lock.unlock();
  PlannedRound round = search_.Next(rt, std::move(feedback), want);
  absl::Status saved = round.tasks.empty() ? absl::OkStatus() : store_->AddTasks(round.tasks);
  lock.lock();
  AddSearchCost(rt, round.cost, round.tasks.size() > round.retimes);
  if (rt->finished()) return;  // cancelled meanwhile
  if (!saved.ok()) {
    FinishJob(rt, JobState::kFailed, absl::StrCat("storing tasks failed: ", saved.message()));
    rt->job.error = std::string(saved.message());
    cv_.notify_all();
    return;
  }
  if (round.tasks.empty() && rt->compare_again_at) return;  // a comparison to run again, after its pause
  if (round.tasks.empty()) {
    // Trials left to issue but nothing new proposed: the search ran dry.
    FinishJob(rt, JobState::kDone,
              want > 0 ? "the search found no new candidates (search space exhausted)" : "done");
    cv_.notify_all();
    return;
  }
  rt->issued += static_cast<int64_t>(round.tasks.size() - round.retimes);
  ++rt->round;
  rt->message = rt->ProgressLine();
  ++rt->version;
  dispatcher_->Enqueue(std::move(round.tasks));
  cv_.notify_all();
}

}  // namespace tuneforge::server
