// The agent's main loop (see worker_agent.h for the picture). Everything
// here runs on the thread that called Run, except Stop (any thread) and the
// heartbeat thread, which shares only the registration and the counters.
#include "worker/agent/worker_agent.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "worker/agent/backoff.h"
#include "worker/agent/heartbeat.h"
#include "worker/agent/task_executor.h"
#include "worker/agent/worker_client.h"

namespace tuneforge::worker {
namespace {

constexpr absl::Duration kReportDeadline = absl::Seconds(30);
constexpr int kDefaultHeartbeatMs = 2000;
// A server that wants TLS from a worker without --tls-ca (or the other way
// round) will not change its mind: after this many such refusals in a row
// while registering, the worker stops and says so instead of retrying.
constexpr int kTlsMismatchesToStop = 3;

}  // namespace

class WorkerAgent::Session {
 public:
  explicit Session(WorkerOptions options)
      : options_(std::move(options)), backoff_(options_.min_backoff, options_.max_backoff) {}

  absl::Status Run();
  void Stop();
  WorkerCounters counters() const {
    absl::MutexLock lock(&mu_);
    return counters_;
  }
  std::string worker_id() const {
    absl::MutexLock lock(&mu_);
    return worker_id_;
  }

 private:
  // Results of one lease, kept until the server acknowledges them.
  struct PendingReport {
    std::string lease_id;
    std::vector<v1::MeasureResult> results;
  };

  absl::Status Connect();
  // One turn of the loop: register if needed, deliver kept reports, lease
  // and measure. Returns only fatal errors; the rest back off and retry.
  absl::Status Turn();
  absl::Status Register();
  absl::Status FlushReports(absl::Duration deadline);
  absl::Status LeaseAndMeasure();
  // The final report and Deregister, each tried once.
  void Finish();

  // A call failed in a way worth retrying: note an outage, wait the backoff.
  void Failed(const char* call, const absl::Status& status);
  void Reached();
  void Sleep(absl::Duration duration);
  // The id the heartbeat should use: "" while unregistered.
  std::string LiveId() const;
  // The server forgot `id` (heartbeat known=false, Lease NOT_FOUND).
  void Forget(const std::string& id);
  void Count(int64_t WorkerCounters::*counter, int64_t n = 1) {
    absl::MutexLock lock(&mu_);
    counters_.*counter += n;
  }
  void Log(const std::string& line) const {
    if (!options_.log) return;
    absl::MutexLock lock(&log_mu_);
    options_.log(line);
  }

  WorkerOptions options_;
  v1::DeviceInfo device_;
  std::string address_;
  std::unique_ptr<TaskExecutor> executor_;
  std::unique_ptr<Heartbeater> heartbeat_;
  Backoff backoff_;
  std::atomic<bool> stopping_{false};  // polled by the build threads
  bool unreachable_ = false;           // an outage is in progress
  int tls_mismatches_ = 0;             // in a row, while registering
  std::deque<PendingReport> pending_;

  mutable absl::Mutex mu_;
  std::unique_ptr<WorkerClient> client_ ABSL_GUARDED_BY(mu_);
  bool stop_requested_ ABSL_GUARDED_BY(mu_) = false;
  std::string worker_id_ ABSL_GUARDED_BY(mu_);
  bool registered_ ABSL_GUARDED_BY(mu_) = false;  // the server knows worker_id_
  WorkerCounters counters_ ABSL_GUARDED_BY(mu_);
  mutable absl::Mutex log_mu_;

  WorkerClient& client() {
    absl::MutexLock lock(&mu_);
    return *client_;
  }
};

absl::Status WorkerAgent::Session::Run() {
  if (absl::Status s = Connect(); !s.ok()) return s;
  heartbeat_ = std::make_unique<Heartbeater>(
      &client(), [this] { return LiveId(); }, [this](const std::string& id) { Forget(id); });
  heartbeat_->Start();
  absl::Status fatal;
  while (fatal.ok() && !stopping_.load()) fatal = Turn();
  Finish();
  return fatal;
}

absl::Status WorkerAgent::Session::Connect() {
  if (options_.max_tasks_per_lease < 1 || options_.max_tasks_per_lease > 256)
    return absl::InvalidArgumentError(absl::StrCat("max tasks per lease is ",
                                                   options_.max_tasks_per_lease,
                                                   "; give a number from 1 to 256"));
  std::shared_ptr<grpc::Channel> channel = options_.channel;
  address_ = channel ? "the in-process server" : options_.connect.address;
  if (!channel) {
    rpc::ConnectOptions connect = options_.connect;
    connect.max_reconnect_backoff_ms =
        static_cast<int>(absl::ToInt64Milliseconds(options_.max_backoff));
    absl::StatusOr<std::shared_ptr<grpc::Channel>> made = rpc::MakeChannel(connect);
    if (!made.ok()) return made.status();
    channel = *std::move(made);
  }
  absl::StatusOr<std::unique_ptr<TaskExecutor>> executor = TaskExecutor::Create(
      {options_.runner_only, options_.build_jobs, options_.runner_path, options_.build_timeout_s, options_.target});
  if (!executor.ok()) return executor.status();
  executor_ = *std::move(executor);
  device_ = ProbeDevice(options_.device_key, options_.runner_only, options_.emulated, options_.target);
  absl::MutexLock lock(&mu_);
  client_ = std::make_unique<WorkerClient>(
      channel, options_.connect.token, address_,
      options_.channel ? rpc::Transport::kUnknown : rpc::TransportOf(options_.connect));
  // Stop may have come first.
  if (stop_requested_) client_->CancelLeases();
  return absl::OkStatus();
}

absl::Status WorkerAgent::Session::Turn() {
  if (LiveId().empty()) {
    if (absl::Status s = Register(); !s.ok()) return s;
    if (LiveId().empty()) return absl::OkStatus();  // not reached; backed off
  }
  if (!pending_.empty()) {
    if (absl::Status s = FlushReports(kReportDeadline); !s.ok()) return s;
    if (!pending_.empty()) return absl::OkStatus();  // not delivered; backed off
  }
  return LeaseAndMeasure();
}

absl::Status WorkerAgent::Session::Register() {
  absl::StatusOr<v1::RegisterWorkerResponse> r = client().Register(device_);
  if (IsAuthFailure(r.status())) return RefusalError(address_, r.status());
  if (absl::IsInvalidArgument(r.status()))
    return absl::InvalidArgumentError(absl::StrCat(
        "the server refused this worker's device: ", r.status().message(),
        "; fix the device key (--device-key) or update the worker"));
  if (!r.ok()) {
    tls_mismatches_ = rpc::IsTlsMismatch(r.status()) ? tls_mismatches_ + 1 : 0;
    if (tls_mismatches_ >= kTlsMismatchesToStop) return absl::FailedPreconditionError(r.status().message());
    Failed("register", r.status());
    return absl::OkStatus();
  }
  tls_mismatches_ = 0;
  Reached();
  {
    absl::MutexLock lock(&mu_);
    worker_id_ = r->worker_id();
    registered_ = true;
    ++counters_.registrations;
  }
  int interval_ms = r->heartbeat_interval_ms() > 0 ? r->heartbeat_interval_ms() : kDefaultHeartbeatMs;
  heartbeat_->SetInterval(absl::Milliseconds(interval_ms));
  Log(absl::StrCat("tuneforge-worker ", r->worker_id(), " (", device_.device_key(),
                   options_.runner_only ? ", runner only" : "", ") connected to ", address_));
  return absl::OkStatus();
}

absl::Status WorkerAgent::Session::FlushReports(absl::Duration deadline) {
  while (!pending_.empty()) {
    const PendingReport& report = pending_.front();
    v1::ReportRequest request;
    request.set_worker_id(worker_id());
    request.set_lease_id(report.lease_id);
    for (const v1::MeasureResult& r : report.results) *request.add_results() = r;
    absl::StatusOr<v1::ReportResponse> ack = client().Report(request, deadline);
    if (ack.ok()) {
      Reached();
      Count(&WorkerCounters::reports_acknowledged);
      if (options_.verbose)
        Log(absl::StrCat("reported ", report.results.size(), " results of lease ",
                         report.lease_id, ": ", ack->accepted(), " stored, ", ack->duplicate(),
                         " already stored, ", ack->rejected(), " rejected (task unknown or ended)"));
      pending_.pop_front();
      continue;
    }
    Count(&WorkerCounters::report_failures);
    if (IsAuthFailure(ack.status())) return RefusalError(address_, ack.status());
    if (absl::IsInvalidArgument(ack.status())) {
      // Sending the same report again cannot help.
      Log(absl::StrCat("the server refused a report of ", report.results.size(),
                       " results: ", ack.status().message(), "; dropping it"));
      pending_.pop_front();
      continue;
    }
    if (absl::IsNotFound(ack.status())) {
      Forget(request.worker_id());  // register again, then re-send
      return absl::OkStatus();
    }
    Failed("report", ack.status());
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status WorkerAgent::Session::LeaseAndMeasure() {
  const std::string id = worker_id();
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<v1::LeaseResponse> lease =
      client().Lease(id, options_.max_tasks_per_lease, options_.lease_wait_ms);
  if (!lease.ok()) {
    if (stopping_.load()) return absl::OkStatus();
    if (IsAuthFailure(lease.status())) return RefusalError(address_, lease.status());
    if (absl::IsNotFound(lease.status())) {
      Log(absl::StrCat("the server no longer knows worker ", id, "; registering again"));
      Forget(id);
      return absl::OkStatus();
    }
    Failed("lease", lease.status());
    return absl::OkStatus();
  }
  Reached();
  if (lease->tasks().empty()) {
    // The server should have waited for work; pause a little if it did not.
    auto waited = std::chrono::steady_clock::now() - start;
    if (waited < std::chrono::milliseconds(options_.lease_wait_ms / 2)) Sleep(options_.min_backoff);
    return absl::OkStatus();
  }
  Count(&WorkerCounters::leases);
  std::vector<v1::MeasureTask> tasks(lease->tasks().begin(), lease->tasks().end());
  if (options_.verbose)
    Log(absl::StrCat("lease ", lease->lease_id(), ": ", tasks.size(), " tasks of ",
                     tasks.front().workload().spec().empty() ? tasks.front().workload().name()
                                                             : tasks.front().workload().spec()));
  std::vector<v1::MeasureResult> results =
      executor_->Execute(tasks, [this] { return stopping_.load(); });
  Count(&WorkerCounters::tasks_measured, static_cast<int64_t>(results.size()));
  if (options_.verbose) {
    int errors = 0;
    for (const v1::MeasureResult& r : results) errors += r.error_kind() != v1::MEASURE_ERROR_KIND_NONE;
    Log(absl::StrCat("lease ", lease->lease_id(), ": measured ", results.size(), " of ",
                     tasks.size(), " tasks, ", errors, " with errors"));
  }
  if (!results.empty()) pending_.push_back({lease->lease_id(), std::move(results)});
  // While stopping, Finish makes the one last attempt.
  if (stopping_.load()) return absl::OkStatus();
  return FlushReports(kReportDeadline);
}

void WorkerAgent::Session::Finish() {
  if (heartbeat_) heartbeat_->Stop();
  if (!executor_) return;  // never connected
  if (!pending_.empty()) {
    // A refused token here changes nothing: what is not delivered is re-leased.
    (void)FlushReports(options_.shutdown_call_timeout);
    if (!pending_.empty()) {
      size_t lost = 0;
      for (const PendingReport& p : pending_) lost += p.results.size();
      Log(absl::StrCat("could not deliver ", lost,
                       " results before stopping; the server will lease those tasks again"));
    }
  }
  const std::string id = LiveId();
  if (id.empty()) return;
  absl::StatusOr<v1::DeregisterWorkerResponse> r =
      client().Deregister(id, options_.shutdown_call_timeout);
  if (!r.ok()) {
    Log(absl::StrCat("could not return the leased tasks (", r.status().message(),
                     "); the server will lease them again when their leases expire"));
    return;
  }
  Count(&WorkerCounters::returned_tasks, r->returned_tasks());
  {
    absl::MutexLock lock(&mu_);
    registered_ = false;
  }
  Log(absl::StrCat("tuneforge-worker ", id, " stopped; returned ", r->returned_tasks(),
                   " unstarted tasks to the server"));
}

void WorkerAgent::Session::Stop() {
  stopping_.store(true);
  absl::MutexLock lock(&mu_);
  stop_requested_ = true;
  if (client_) client_->CancelLeases();
}

void WorkerAgent::Session::Failed(const char* call, const absl::Status& status) {
  if (IsUnreachable(status)) {
    if (!unreachable_)
      Log(absl::StrCat("lost the server (", call, ": ", status.message(), "); retrying every ",
                       "few seconds at most"));
    unreachable_ = true;
  } else {
    Log(absl::StrCat(call, " failed: ", status.ToString(), "; retrying"));
  }
  Sleep(backoff_.Next());
}

void WorkerAgent::Session::Reached() {
  backoff_.Reset();
  if (!unreachable_) return;
  unreachable_ = false;
  Count(&WorkerCounters::reconnects);
  Log(absl::StrCat("reconnected to ", address_));
}

void WorkerAgent::Session::Sleep(absl::Duration duration) {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(&stop_requested_), duration);
}

std::string WorkerAgent::Session::LiveId() const {
  absl::MutexLock lock(&mu_);
  return registered_ ? worker_id_ : "";
}

void WorkerAgent::Session::Forget(const std::string& id) {
  absl::MutexLock lock(&mu_);
  if (worker_id_ == id) registered_ = false;
}

WorkerAgent::WorkerAgent(WorkerOptions options)
    : session_(std::make_unique<Session>(std::move(options))) {}
WorkerAgent::~WorkerAgent() = default;
absl::Status WorkerAgent::Run() { return session_->Run(); }
void WorkerAgent::Stop() { session_->Stop(); }
WorkerCounters WorkerAgent::counters() const { return session_->counters(); }
std::string WorkerAgent::worker_id() const { return session_->worker_id(); }

}  // namespace tuneforge::worker
