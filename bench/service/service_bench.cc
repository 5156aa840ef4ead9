#include "bench/service/service_bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/service/scratch_database.h"
#include "bench/timing.h"
#include "common/rpc/channel.h"
#include "proto/tuneforge.grpc.pb.h"
#include "server/server.h"

namespace tuneforge::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr char kToken[] = "bench-token";
constexpr char kDeviceKey[] = "bench-simulated";

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A server on 127.0.0.1 with a fresh database; both go with this.
class BenchServer {
 public:
  static absl::StatusOr<std::unique_ptr<BenchServer>> Start(const std::string& dir) {
    auto b = std::unique_ptr<BenchServer>(new BenchServer(dir));
    server::ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.db_path = b->database_.path();
    options.token = kToken;
    absl::StatusOr<std::unique_ptr<server::Server>> s = server::Server::Start(options);
    if (!s.ok()) return s.status();
    b->server_ = *std::move(s);
    return b;
  }
  server::Server& server() { return *server_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", server_->port()); }

  absl::StatusOr<std::shared_ptr<grpc::Channel>> Channel() const {
    // A channel argument makes each its own connection, as separate worker
    // machines would have.
    rpc::ConnectOptions connect;
    connect.address = address();
    connect.token = kToken;
    return rpc::MakeChannel(connect);
  }

  absl::StatusOr<std::string> Submit(int trials, int batch) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = Channel();
    if (!channel.ok()) return channel.status();
    auto jobs = v1::Jobs::NewStub(*channel);
    v1::SubmitJobRequest request;
    request.mutable_spec()->add_workloads()->set_spec("matmul:M=64,N=64,K=64");
    request.mutable_spec()->set_device_key(kDeviceKey);
    request.mutable_spec()->set_trials(trials);
    request.mutable_spec()->set_batch_size(batch);
    request.mutable_spec()->set_name("service benchmark");
    v1::SubmitJobResponse response;
    grpc::Status s = jobs->Submit(rpc::MakeContext(kToken).get(), request, &response);
    if (!s.ok()) return rpc::FromGrpc(s, address());
    return response.job().id();
  }

 private:
  explicit BenchServer(const std::string& dir) : database_(dir, "service_bench.db") {}
  ScratchDatabase database_;                 // declared first: outlives the server
  std::unique_ptr<server::Server> server_;
};

// A worker that measures nothing: every leased task is reported at once
// with a made-up time.
class SimulatedWorker {
 public:
  explicit SimulatedWorker(std::shared_ptr<grpc::Channel> channel, uint64_t seed)
      : stub_(v1::Workers::NewStub(std::move(channel))), rng_(seed) {}

  absl::Status Register() {
    v1::RegisterWorkerRequest request;
    v1::DeviceInfo* d = request.mutable_device();
    d->set_device_key(kDeviceKey);
    d->set_triple("x86_64-pc-linux-gnu");
    d->set_cpu("generic");
    d->set_cores(1);
    d->set_can_build(true);
    v1::RegisterWorkerResponse response;
    grpc::Status s = stub_->Register(rpc::MakeContext(kToken).get(), request, &response);
    if (!s.ok()) return rpc::FromGrpc(s);
    id_ = response.worker_id();
    return absl::OkStatus();
  }

  // Leases up to max_tasks; returns how many came (0 when none within wait_ms).
  absl::StatusOr<int> Lease(int max_tasks, int wait_ms) {
    v1::LeaseRequest request;
    request.set_worker_id(id_);
    request.set_max_tasks(max_tasks);
    request.set_wait_ms(wait_ms);
    grpc::Status s = stub_->Lease(rpc::MakeContext(kToken).get(), request, &lease_);
    if (!s.ok()) return rpc::FromGrpc(s);
    return lease_.tasks_size();
  }

  // Reports the last lease; returns what the server stored (new records,
  // re-timings applied).
  absl::StatusOr<v1::ReportResponse> Report() {
    v1::ReportRequest request;
    request.set_worker_id(id_);
    request.set_lease_id(lease_.lease_id());
    std::uniform_real_distribution<double> seconds(1e-4, 1e-2);
    for (const v1::MeasureTask& task : lease_.tasks()) {
      v1::MeasureResult* r = request.add_results();
      r->set_task_id(task.task_id());
      r->set_error_kind(v1::MEASURE_ERROR_KIND_NONE);
      r->set_median_seconds(seconds(rng_));
      r->add_repeat_seconds(r->median_seconds());
      r->set_compile_ms(10);
    }
    v1::ReportResponse response;
    grpc::Status s = stub_->Report(rpc::MakeContext(kToken).get(), request, &response);
    if (!s.ok()) return rpc::FromGrpc(s);
    return response;
  }

 private:
  std::unique_ptr<v1::Workers::Stub> stub_;
  std::mt19937_64 rng_;
  std::string id_;
  v1::LeaseResponse lease_;
};

absl::StatusOr<int64_t> StoredRecords(BenchServer& b, const std::string& job_id) {
  absl::StatusOr<server::JobTotals> totals = b.server().store().Totals(job_id);
  if (!totals.ok()) return totals.status();
  return totals->trials;
}

}  // namespace

absl::StatusOr<ServiceIngestFigures> MeasureServiceIngest(const std::string& dir,
                                                          const ServiceIngestOptions& options) {
  absl::StatusOr<std::unique_ptr<BenchServer>> bench = BenchServer::Start(dir);
  if (!bench.ok()) return bench.status();
  BenchServer& b = **bench;
  std::vector<std::unique_ptr<SimulatedWorker>> workers;
  for (int i = 0; i < options.workers; ++i) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = b.Channel();
    if (!channel.ok()) return channel.status();
    workers.push_back(std::make_unique<SimulatedWorker>(*channel, i + 1));
    if (absl::Status s = workers.back()->Register(); !s.ok()) return s;
  }
  absl::StatusOr<std::string> job = b.Submit(options.trials, options.batch);
  if (!job.ok()) return job.status();

  std::atomic<int64_t> reported{0}, accepted{0}, updated{0};
  std::atomic<bool> failed{false};
  std::string first_error;
  std::mutex error_mu;
  Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (auto& worker : workers) {
    threads.emplace_back([&, w = worker.get()] {
      while (!failed.load() && accepted.load() < options.trials) {
        absl::StatusOr<int> n = w->Lease(options.max_tasks, 200);
        absl::StatusOr<v1::ReportResponse> stored =
            n.ok() && *n > 0 ? w->Report() : absl::StatusOr<v1::ReportResponse>(v1::ReportResponse{});
        if (!n.ok() || !stored.ok()) {
          std::lock_guard<std::mutex> lock(error_mu);
          if (!failed.exchange(true)) first_error = std::string((!n.ok() ? n.status() : stored.status()).message());
          return;
        }
        reported += *n;
        accepted += stored->accepted();
        updated += stored->updated();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (failed.load()) return absl::InternalError(absl::StrCat("a simulated worker failed: ", first_error));
  ServiceIngestFigures f;
  f.seconds = MsSince(start) / 1e3;
  f.workers = options.workers;
  f.reported = reported.load();
  f.accepted = accepted.load();
  f.updated = updated.load();
  absl::StatusOr<int64_t> stored = StoredRecords(b, *job);
  if (!stored.ok()) return stored.status();
  f.stored = *stored;
  f.results_per_s = static_cast<double>(f.stored) / f.seconds;
  // Re-timings update records of the job: they are not new ones.
  if (f.stored != f.accepted || f.stored != options.trials)
    return absl::DataLossError(absl::StrCat("the store holds ", f.stored, " records of the job; the server "
                                            "acknowledged ", f.accepted, " new and ", f.updated,
                                            " re-timings of ", f.reported, " reported"));
  return f;
}

absl::StatusOr<DispatchFigures> MeasureDispatchOverhead(const std::string& dir,
                                                        const DispatchOptions& options) {
  absl::StatusOr<std::unique_ptr<BenchServer>> bench = BenchServer::Start(dir);
  if (!bench.ok()) return bench.status();
  BenchServer& b = **bench;
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = b.Channel();
  if (!channel.ok()) return channel.status();
  SimulatedWorker worker(*channel, 1);
  if (absl::Status s = worker.Register(); !s.ok()) return s;
  absl::StatusOr<std::string> job = b.Submit(options.trials, options.batch);
  if (!job.ok()) return job.status();
  std::vector<double> lease_ms, report_ms;
  Clock::time_point start = Clock::now();
  int done = 0;
  while (done < options.trials) {
    Clock::time_point t0 = Clock::now();
    absl::StatusOr<int> n = worker.Lease(1, 2000);
    if (!n.ok()) return n.status();
    if (*n == 0) return absl::DeadlineExceededError("no task came within 2 s");
    lease_ms.push_back(MsSince(t0));
    t0 = Clock::now();
    absl::StatusOr<v1::ReportResponse> stored = worker.Report();
    if (!stored.ok()) return stored.status();
    report_ms.push_back(MsSince(t0));
    done += stored->accepted() + stored->updated();  // a re-timing is a dispatched task too
  }
  DispatchFigures f;
  f.tasks = done;
  f.ms_per_candidate = MsSince(start) / done;
  f.lease_ms_median = Median(lease_ms);
  f.report_ms_median = Median(report_ms);
  return f;
}

}  // namespace tuneforge::bench
