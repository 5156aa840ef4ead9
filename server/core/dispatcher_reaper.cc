// The reaper: silent workers are declared lost and their leases return to
// the queue, as do leases past their deadline; a task out of attempts is
// recorded as worker_lost; tasks held after a restart are released; lost
// workers age out of the listing.
#include "server/core/dispatcher_impl.h"
#include "server/core/record_from_result.h"

namespace tuneforge::server {

void DispatcherImpl::ReaperLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    reaper_cv_.wait_for(lock, std::chrono::milliseconds(options_.reaper_period_ms));
    if (stopping_) break;
    std::vector<LostTask> lost_tasks;
    int64_t now = NowMs();
    bool requeued = book_.ReleaseHeld(now);
    for (const auto& [id, worker] : workers_.TakeSilent(now))
      for (const std::string& lease_id : worker.leases) requeued |= book_.ReturnLease(lease_id, true, &lost_tasks) > 0;
    workers_.AgeOutLost(now);
    for (const std::string& id : book_.ExpiredLeases(now)) {
      std::string worker = book_.FindLease(id)->worker_id;
      requeued |= book_.ReturnLease(id, true, &lost_tasks) > 0;
      if (WorkerEntry* w = workers_.Find(worker)) w->leases.erase(id);
    }
    if (requeued) work_cv_.notify_all();
    if (lost_tasks.empty()) continue;
    std::vector<MeasuredResult> lost;
    for (const LostTask& t : lost_tasks)
      lost.push_back(RecordFor(t.task, t.task.row.device_key, t.worker_id,
                               LostResult(t.task.attempts)));
    lock.unlock();
    StoreLost(lost);
    lock.lock();
  }
}

}  // namespace tuneforge::server
