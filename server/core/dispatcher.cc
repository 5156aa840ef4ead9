#include "server/core/dispatcher.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/core/dispatcher_impl.h"

namespace tuneforge::server {

int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }

DispatcherImpl::DispatcherImpl(RecordStore* store, DispatcherOptions options)
    : store_(store),
      options_(options),
      workers_(static_cast<int64_t>(options.heartbeat_interval_ms) * options.missed_heartbeats_before_lost,
               options.lost_worker_listed_ms),
      book_(options.max_attempts, options.lease_slack_ms),
      builds_(MakeRemoteBuildService(&workloads_, options.build_timeout_s)) {
  reaper_ = std::thread([this] { ReaperLoop(); });
}

void DispatcherImpl::SetResultSink(ResultSink* sink) {
  std::lock_guard<std::mutex> lock(mu_);
  sink_ = sink;
}

void DispatcherImpl::Enqueue(std::vector<TaskRow> tasks) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    book_.Add(std::move(tasks));
  }
  work_cv_.notify_all();
}

void DispatcherImpl::EnqueueAfterRestart(std::vector<TaskRow> tasks) {
  if (options_.restart_grace_ms <= 0) return Enqueue(std::move(tasks));
  std::lock_guard<std::mutex> lock(mu_);
  book_.Add(std::move(tasks), NowMs() + options_.restart_grace_ms);  // the reaper releases them
}

void DispatcherImpl::DropJob(const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  book_.DropJob(job_id);
}

int DispatcherImpl::Outstanding(const std::string& job_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return book_.Outstanding(job_id);
}

absl::StatusOr<Registration> DispatcherImpl::Register(const DeviceInfo& device) {
  if (absl::Status s = store_->SaveDevice(device); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  return Registration{workers_.Add(device, NowMs()), options_.heartbeat_interval_ms};
}

bool DispatcherImpl::Heartbeat(const std::string& worker_id) {
  std::lock_guard<std::mutex> lock(mu_);
  WorkerEntry* w = workers_.Find(worker_id);
  if (w) w->last_heartbeat_ms = NowMs();
  return w != nullptr;
}

absl::StatusOr<LeaseGrant> DispatcherImpl::Lease(const std::string& worker_id, int max_tasks, int wait_ms) {
  LeaseGrant response;
  DeviceInfo device;
  {
    std::unique_lock<std::mutex> lock(mu_);
    WorkerEntry* w = workers_.Find(worker_id);
    if (!w) return UnknownWorker(worker_id);
    w->last_heartbeat_ms = NowMs();
    device = w->device;
    const std::string& key = device.device_key;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(0, wait_ms));
    ++w->waiting;
    work_cv_.wait_until(lock, deadline, [&] { return stopping_ || book_.HasQueued(key); });
    w = workers_.Find(worker_id);  // it may have deregistered meanwhile
    if (!w) return response;
    --w->waiting;
    w->last_heartbeat_ms = NowMs();
    if (stopping_) return response;
    std::optional<LeaseGrant> grant = book_.Lease(worker_id, key, FairShare(key, max_tasks), NowMs());
    if (!grant) return response;
    w->leases.insert(grant->lease_id);
    response = *std::move(grant);
  }
  if (!device.can_build) ShipBuiltKernels(device, worker_id, &response);
  return response;
}

absl::StatusOr<int> DispatcherImpl::Deregister(const std::string& worker_id) {
  int returned = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    WorkerEntry* w = workers_.Find(worker_id);
    if (!w) return UnknownWorker(worker_id);
    for (const std::string& lease_id : w->leases) returned += book_.ReturnLease(lease_id, false, nullptr);
    workers_.Remove(worker_id);
  }
  work_cv_.notify_all();
  return returned;
}

std::vector<WorkerStatus> DispatcherImpl::ListWorkers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return workers_.List(NowMs(), [&](const std::set<std::string>& leases) { return book_.LeasedTasks(leases); });
}

bool DispatcherImpl::HasWorkerFor(const std::string& device_key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return workers_.HasWorkerFor(device_key);
}

void DispatcherImpl::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  work_cv_.notify_all();
  reaper_cv_.notify_all();
  if (reaper_.joinable()) reaper_.join();
}

absl::Status DispatcherImpl::UnknownWorker(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("worker_id: no worker '", id,
                                          "' (the server restarted or declared it lost); register again"));
}

// Every worker gets part of a round: one worker taking a whole round would
// leave the others idle until the next.
int DispatcherImpl::FairShare(const std::string& key, int max_tasks) const {
  int64_t workers = workers_.IdleAlive(key, NowMs());
  int64_t queued = static_cast<int64_t>(book_.Queued(key));
  int64_t share = workers > 1 ? (queued + workers - 1) / workers : queued;
  return static_cast<int>(std::clamp<int64_t>(share, 1, max_tasks));
}

std::unique_ptr<Dispatcher> Dispatcher::Create(RecordStore* store, DispatcherOptions options) {
  return std::make_unique<DispatcherImpl>(store, options);
}

}  // namespace tuneforge::server
