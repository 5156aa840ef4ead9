#include "server/core/dispatcher.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/core/device_queues.h"
#include "server/core/record_from_result.h"
#include "server/core/remote_build.h"
#include "measure/measurer.h"
#include "server/core/workload_cache.h"

namespace tuneforge::server {
namespace {

int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }

struct WorkerEntry {
  v1::DeviceInfo device;
  int64_t last_heartbeat_ms = 0;
  int waiting = 0;  // Lease calls long-polling now: the worker is clearly there
  int64_t measured = 0;
  std::set<std::string> leases;
};

struct TaskEntry {
  TaskRow row;
  int attempts = 0;       // leases that ended without a result
  std::string lease_id;   // "" while queued
};

struct LeaseEntry {
  std::string worker_id;
  std::set<std::string> task_ids;
  int64_t deadline_ms = 0;
};

class DispatcherImpl : public Dispatcher {
 public:
  DispatcherImpl(RecordStore* store, DispatcherOptions options)
      : store_(store),
        options_(options),
        rng_(std::random_device{}()),
        builders_(measure::RunnerChildConfig(measure::MeasureOptions{}), 0, options.build_timeout_s) {
    reaper_ = std::thread([this] { ReaperLoop(); });
  }
  ~DispatcherImpl() override { Shutdown(); }

  void SetResultSink(ResultSink* sink) override {
    std::lock_guard<std::mutex> lock(mu_);
    sink_ = sink;
  }

  void Enqueue(std::vector<TaskRow> tasks) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (TaskRow& row : tasks) {
        std::string id = row.task_id;
        if (tasks_.count(id)) continue;
        queues_.Push(row.device_key, row.job_id, id);
        ++outstanding_[row.job_id];
        tasks_.emplace(id, TaskEntry{std::move(row), 0, ""});
      }
    }
    work_cv_.notify_all();
  }

  void DropJob(const std::string& job_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& id : queues_.DropJob(job_id)) tasks_.erase(id);
    for (auto it = tasks_.begin(); it != tasks_.end();) {
      if (it->second.row.job_id != job_id) {
        ++it;
        continue;
      }
      if (auto l = leases_.find(it->second.lease_id); l != leases_.end()) l->second.task_ids.erase(it->first);
      it = tasks_.erase(it);
    }
    outstanding_.erase(job_id);
  }

  int Outstanding(const std::string& job_id) const override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = outstanding_.find(job_id);
    return it == outstanding_.end() ? 0 : it->second;
  }

  absl::StatusOr<v1::RegisterWorkerResponse> Register(const v1::DeviceInfo& device) override {
    if (absl::Status s = store_->SaveDevice(device); !s.ok()) return s;
    std::lock_guard<std::mutex> lock(mu_);
    std::string id = absl::StrCat("w", ++worker_counter_, "-", std::uniform_int_distribution<int>(
                                                                   0x1000, 0xffff)(rng_));
    workers_[id] = WorkerEntry{device, NowMs(), 0, 0, {}};
    v1::RegisterWorkerResponse r;
    r.set_worker_id(id);
    r.set_heartbeat_interval_ms(options_.heartbeat_interval_ms);
    return r;
  }

  v1::HeartbeatResponse Heartbeat(const std::string& worker_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    v1::HeartbeatResponse r;
    auto it = workers_.find(worker_id);
    r.set_known(it != workers_.end());
    if (it != workers_.end()) it->second.last_heartbeat_ms = NowMs();
    return r;
  }

  absl::StatusOr<v1::LeaseResponse> Lease(const std::string& worker_id, int max_tasks,
                                          int wait_ms) override {
    v1::LeaseResponse response;
    v1::DeviceInfo device;
    {
      std::unique_lock<std::mutex> lock(mu_);
      auto w = workers_.find(worker_id);
      if (w == workers_.end()) return UnknownWorker(worker_id);
      w->second.last_heartbeat_ms = NowMs();
      device = w->second.device;
      const std::string& key = device.device_key();
      auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(0, wait_ms));
      ++w->second.waiting;
      work_cv_.wait_until(lock, deadline, [&] { return stopping_ || !queues_.Empty(key); });
      w = workers_.find(worker_id);  // it may have deregistered meanwhile
      if (w == workers_.end()) return response;
      --w->second.waiting;
      w->second.last_heartbeat_ms = NowMs();
      if (stopping_) return response;
      std::vector<std::string> ids;
      std::set<std::string> picked;
      // A queued id may be stale (reported by a worker whose lease had
      // expired after the task went back to the queue) or queued twice.
      for (const std::string& id : queues_.Pop(key, FairShare(key, max_tasks)))
        if (auto t = tasks_.find(id); t != tasks_.end() && t->second.lease_id.empty() && picked.insert(id).second)
          ids.push_back(id);
      if (ids.empty()) return response;
      std::string lease_id = absl::StrCat("l", ++lease_counter_);
      LeaseEntry lease{worker_id, {}, 0};
      double budget_ms = options_.lease_slack_ms;
      for (const std::string& id : ids) {
        TaskEntry& t = tasks_.at(id);
        t.lease_id = lease_id;
        lease.task_ids.insert(id);
        *response.add_tasks() = t.row.task;
        double timeout_s = t.row.task.measure().timeout_s() > 0 ? t.row.task.measure().timeout_s() : 10;
        // The check run and the timed runs are bounded by the timeout; a
        // build and the reference run (once per workload) come on top.
        budget_ms += 2000 * timeout_s + 5000;
      }
      lease.deadline_ms = NowMs() + static_cast<int64_t>(budget_ms);
      w->second.leases.insert(lease_id);
      response.set_lease_id(lease_id);
      response.set_deadline_unix_ms(lease.deadline_ms);
      leases_.emplace(lease_id, std::move(lease));
    }
    if (!device.can_build()) ShipBuiltKernels(worker_id, &response);
    return response;
  }

  absl::StatusOr<v1::ReportResponse> Report(const v1::ReportRequest& request) override {
    std::vector<v1::Record> records;
    std::vector<std::string> task_ids;
    v1::ReportResponse response;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto w = workers_.find(request.worker_id());
      std::string device_key = w != workers_.end() ? w->second.device.device_key() : "";
      for (const v1::MeasureResult& result : request.results()) {
        auto t = tasks_.find(result.task_id());
        if (t == tasks_.end()) {
          response.set_rejected(response.rejected() + 1);  // finished, cancelled or unknown
          continue;
        }
        records.push_back(RecordFor(t->second, device_key.empty() ? t->second.row.device_key : device_key,
                                    request.worker_id(), result));
        task_ids.push_back(result.task_id());
      }
    }
    if (records.empty()) return response;
    absl::StatusOr<AddOutcome> added = store_->AddRecords(records);
    if (!added.ok()) return added.status();  // the worker keeps its results and retries
    response.set_accepted(added->accepted);
    response.set_duplicate(added->duplicate);
    ResultSink* sink = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const std::string& id : task_ids) Finish(id);
      if (auto w = workers_.find(request.worker_id()); w != workers_.end()) {
        w->second.measured += static_cast<int64_t>(task_ids.size());
        w->second.last_heartbeat_ms = NowMs();
        // A lease whose tasks are all reported is over.
        if (auto l = leases_.find(request.lease_id()); l != leases_.end() && l->second.task_ids.empty()) {
          w->second.leases.erase(request.lease_id());
          leases_.erase(l);
        }
      }
      sink = sink_;
    }
    if (sink) sink->OnResults(records);
    return response;
  }

  absl::StatusOr<int> Deregister(const std::string& worker_id) override {
    int returned = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto w = workers_.find(worker_id);
      if (w == workers_.end()) return UnknownWorker(worker_id);
      for (const std::string& lease_id : w->second.leases)
        returned += ReturnLease(lease_id, /*count_attempt=*/false, nullptr);
      workers_.erase(w);
    }
    work_cv_.notify_all();
    return returned;
  }

  std::vector<v1::WorkerStatus> ListWorkers() const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<v1::WorkerStatus> out;
    int64_t now = NowMs();
    for (const auto& [id, w] : workers_) {
      v1::WorkerStatus s;
      s.set_id(id);
      *s.mutable_device() = w.device;
      s.set_state(Alive(w, now) ? "alive" : "lost");
      int leased = 0;
      for (const std::string& l : w.leases)
        if (auto it = leases_.find(l); it != leases_.end()) leased += static_cast<int>(it->second.task_ids.size());
      s.set_leases(leased);
      s.set_last_heartbeat_unix_ms(w.last_heartbeat_ms);
      s.set_measured(w.measured);
      out.push_back(std::move(s));
    }
    for (const auto& [id, w] : lost_) out.push_back(w);
    return out;
  }

  bool HasWorkerFor(const std::string& device_key) const override {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, w] : workers_)
      if (w.device.device_key() == device_key) return true;
    return false;
  }

  void Shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    work_cv_.notify_all();
    reaper_cv_.notify_all();
    if (reaper_.joinable()) reaper_.join();
  }

 private:
  static absl::Status UnknownWorker(const std::string& id) {
    return absl::NotFoundError(absl::StrCat("worker_id: no worker '", id,
                                            "' (the server restarted or declared it lost); register again"));
  }

  // A lease takes at most its share of what is queued for the device key
  // among the idle workers of that key (no lease held, alive), so that every
  // worker gets part of a round: one worker taking a whole round would leave
  // the others idle until the next.
  int FairShare(const std::string& key, int max_tasks) const {
    int64_t workers = 0, now = NowMs();
    for (const auto& [id, w] : workers_)
      if (w.device.device_key() == key && w.leases.empty() && Alive(w, now))
        ++workers;
    int64_t queued = static_cast<int64_t>(queues_.Size(key));
    int64_t share = workers > 1 ? (queued + workers - 1) / workers : queued;
    return static_cast<int>(std::clamp<int64_t>(share, 1, max_tasks));
  }

  // Long-polling in Lease counts as a sign of life, like a heartbeat.
  bool Alive(const WorkerEntry& w, int64_t now_ms) const {
    return w.waiting > 0 || now_ms - w.last_heartbeat_ms <= LostAfterMs();
  }

  int64_t LostAfterMs() const {
    return static_cast<int64_t>(options_.heartbeat_interval_ms) * options_.missed_heartbeats_before_lost;
  }

  v1::Record RecordFor(const TaskEntry& t, const std::string& device_key, const std::string& worker_id,
                       const v1::MeasureResult& result) {
    absl::StatusOr<te::Workload> w = workloads_.Get(t.row.workload_key, t.row.task.workload());
    double flops = w.ok() ? w->dag->flops() : 0;
    std::string label = w.ok() ? WorkloadLabel(t.row.task.workload(), *w) : t.row.workload_key;
    return MakeRecord(t.row.task, t.row.job_id, device_key, worker_id, label, flops, result);
  }

  // The task has its record: it leaves every structure.
  void Finish(const std::string& task_id) {
    auto t = tasks_.find(task_id);
    if (t == tasks_.end()) return;
    if (auto l = leases_.find(t->second.lease_id); l != leases_.end()) l->second.task_ids.erase(task_id);
    if (--outstanding_[t->second.row.job_id] <= 0) outstanding_.erase(t->second.row.job_id);
    tasks_.erase(t);
  }

  // Puts a lease's unfinished tasks back in front of their queues; a task
  // out of attempts becomes a worker_lost record in `lost`. Returns how
  // many went back.
  int ReturnLease(const std::string& lease_id, bool count_attempt, std::vector<v1::Record>* lost) {
    auto l = leases_.find(lease_id);
    if (l == leases_.end()) return 0;
    int returned = 0;
    for (const std::string& id : l->second.task_ids) {
      auto t = tasks_.find(id);
      if (t == tasks_.end()) continue;
      t->second.lease_id.clear();
      if (count_attempt && ++t->second.attempts >= options_.max_attempts && lost) {
        lost->push_back(RecordFor(t->second, t->second.row.device_key, l->second.worker_id,
                                  LostResult(id, t->second.attempts)));
        continue;
      }
      queues_.PushFront(t->second.row.device_key, t->second.row.job_id, id);
      ++returned;
    }
    leases_.erase(l);
    return returned;
  }

  void ReaperLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      reaper_cv_.wait_for(lock, std::chrono::milliseconds(options_.reaper_period_ms));
      if (stopping_) break;
      std::vector<v1::Record> lost;
      int64_t now = NowMs();
      bool requeued = false;
      // Workers silent too long are lost; their leases return.
      for (auto w = workers_.begin(); w != workers_.end();) {
        if (Alive(w->second, now)) {
          ++w;
          continue;
        }
        for (const std::string& lease_id : w->second.leases) requeued |= ReturnLease(lease_id, true, &lost) > 0;
        v1::WorkerStatus gone;
        gone.set_id(w->first);
        *gone.mutable_device() = w->second.device;
        gone.set_state("lost");
        gone.set_last_heartbeat_unix_ms(w->second.last_heartbeat_ms);
        gone.set_measured(w->second.measured);
        lost_[w->first] = gone;
        w = workers_.erase(w);
      }
      // Leases past their deadline return too.
      std::vector<std::string> expired;
      for (const auto& [id, l] : leases_)
        if (l.deadline_ms < now) expired.push_back(id);
      for (const std::string& id : expired) {
        std::string worker = leases_.at(id).worker_id;
        requeued |= ReturnLease(id, true, &lost) > 0;
        if (auto w = workers_.find(worker); w != workers_.end()) w->second.leases.erase(id);
      }
      if (requeued) work_cv_.notify_all();
      if (lost.empty()) continue;
      lock.unlock();
      StoreLost(lost);
      lock.lock();
    }
  }

  void StoreLost(const std::vector<v1::Record>& lost) {
    absl::StatusOr<AddOutcome> added = store_->AddRecords(lost);
    if (!added.ok()) return;  // the tasks stay outstanding: retried next round
    ResultSink* sink;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const v1::Record& r : lost) Finish(r.task_id());
      sink = sink_;
    }
    if (sink) sink->OnResults(lost);
  }

  // Runner-only workers get objects built here; a task that cannot be built
  // is answered right away with its build error.
  void ShipBuiltKernels(const std::string& worker_id, v1::LeaseResponse* response) {
    std::vector<v1::MeasureTask*> tasks;
    for (v1::MeasureTask& t : *response->mutable_tasks()) tasks.push_back(&t);
    v1::DeviceInfo device;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto w = workers_.find(worker_id);
      if (w == workers_.end()) return;
      device = w->second.device;
    }
    std::vector<RemoteBuildResult> built = BuildForDevice(device, workloads_, builders_, tasks);
    v1::ReportRequest failures;
    failures.set_worker_id(worker_id);
    failures.set_lease_id(response->lease_id());
    google::protobuf::RepeatedPtrField<v1::MeasureTask> shipped;
    for (size_t i = 0; i < built.size(); ++i) {
      if (built[i].error_kind.empty()) {
        *shipped.Add() = *tasks[i];
        continue;
      }
      v1::MeasureResult* r = failures.add_results();
      r->set_task_id(tasks[i]->task_id());
      r->set_error_kind(measure::ErrorKindToProto(
          measure::ParseErrorKind(built[i].error_kind).value_or(measure::MeasureErrorKind::kRunnerError)));
      r->set_error(built[i].error);
    }
    response->mutable_tasks()->Swap(&shipped);
    if (failures.results_size() > 0) (void)Report(failures);
  }

  RecordStore* store_;
  DispatcherOptions options_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_, reaper_cv_;
  std::mt19937 rng_;
  ResultSink* sink_ = nullptr;
  bool stopping_ = false;
  int64_t worker_counter_ = 0, lease_counter_ = 0;
  std::map<std::string, WorkerEntry> workers_;
  std::map<std::string, v1::WorkerStatus> lost_;  // for listings
  std::map<std::string, TaskEntry> tasks_;        // queued or leased
  std::map<std::string, LeaseEntry> leases_;
  std::map<std::string, int> outstanding_;        // per job
  DeviceQueues queues_;
  WorkloadCache workloads_;
  measure::BuilderPool builders_;  // for runner-only workers; one lease's builds at a time
  std::thread reaper_;
};

}  // namespace

std::unique_ptr<Dispatcher> Dispatcher::Create(RecordStore* store, DispatcherOptions options) {
  return std::make_unique<DispatcherImpl>(store, options);
}

}  // namespace tuneforge::server
