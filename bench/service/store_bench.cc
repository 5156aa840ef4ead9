#include "bench/service/store_bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/service/scratch_database.h"
#include "absl/strings/str_format.h"
#include "server/record_store/record_store.h"

namespace tuneforge::bench {
namespace {

using server::RecordStore;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::string> DeviceKeys(int devices) {
  static const char* kRealistic[] = {"x86_64-avx512-2c", "x86_64-avx2-16c", "aarch64-neon-4c", "aarch64-sve-8c"};
  std::vector<std::string> keys;
  for (int d = 0; d < devices; ++d) keys.push_back(d < 4 ? kRealistic[d] : absl::StrCat("device-", d));
  return keys;
}

std::vector<std::string> WorkloadKeys(int workloads, std::mt19937_64& rng) {
  std::vector<std::string> keys;
  for (int w = 0; w < workloads; ++w) keys.push_back(absl::StrFormat("%016x", rng()));
  return keys;
}

// Records as the service stores them: a schedule of ~10 steps, three
// repeats, mixed error kinds.
class RecordMaker {
 public:
  RecordMaker(int workloads, int devices, double error_fraction, uint64_t seed)
      : rng_(seed), workloads_(WorkloadKeys(workloads, rng_)), devices_(DeviceKeys(devices)),
        error_fraction_(error_fraction) {}

  const std::vector<std::string>& workloads() const { return workloads_; }
  const std::vector<std::string>& devices() const { return devices_; }

  server::Record Make(int64_t n) {
    using measure::MeasureErrorKind;
    static const MeasureErrorKind kErrors[] = {MeasureErrorKind::kCompileError, MeasureErrorKind::kTimeout,
                                               MeasureErrorKind::kWrongAnswer, MeasureErrorKind::kRuntimeCrash};
    std::uniform_real_distribution<double> unit(0, 1);
    server::Record record;
    record.task_id = absl::StrCat("bench-task-", n);
    record.job_id = absl::StrCat("bench-job-", n / 5000);
    record.workload_key = workloads_[rng_() % workloads_.size()];
    record.workload = "matmul:K=512,M=512,N=512";
    record.device_key = devices_[rng_() % devices_.size()];
    record.worker_id = absl::StrCat("worker-", rng_() % 100);
    record.schedule_json = Schedule();
    const double seconds = 1e-4 * std::pow(1000.0, unit(rng_));  // 0.1 ms .. 100 ms
    if (unit(rng_) < error_fraction_) {
      record.error_kind = kErrors[rng_() % 4];
      record.error = "the candidate failed in the benchmark's imagination";
    } else {
      record.error_kind = MeasureErrorKind::kNone;
      record.median_seconds = seconds;
      for (double f : {0.99, 1.0, 1.02}) record.repeat_seconds.push_back(seconds * f);
      record.gflops = 2.0 * 512 * 512 * 512 / seconds / 1e9;
    }
    record.compile_ms = 10 + 20 * unit(rng_);
    return record;
  }

 private:
  std::string Schedule() {
    auto split = [&](int stage, int iter) {
      return absl::StrCat(R"({"kind":"split","stage":)", stage, R"(,"iter":)", iter, R"(,"lengths":[)",
                          1 << (rng_() % 5), ",", 1 << (rng_() % 5), R"(],"inner_to_outer":true})");
    };
    return absl::StrCat(R"({"version":1,"workload":"matmul:K=512,M=512,N=512","steps":[)",
                        R"({"kind":"cache_write","stage":2,"scope":"local"},)", split(3, 0), ",", split(3, 3), ",",
                        split(3, 6), R"(,{"kind":"reorder","stage":3,"order":[0,3,1,4,6,2,5,7]},)",
                        R"({"kind":"fuse","stage":3,"iters":[0,1]},)",
                        R"({"kind":"annotation","stage":3,"iter":0,"annotation":"parallel"},)",
                        R"({"kind":"annotation","stage":3,"iter":6,"annotation":"vectorize"},)",
                        R"({"kind":"compute_at","stage":2,"target_stage":3,"target_iter":2}]})");
  }

  std::mt19937_64 rng_;
  std::vector<std::string> workloads_;
  std::vector<std::string> devices_;
  double error_fraction_;
};

struct Percentiles {
  double p50 = 0, p99 = 0, max = 0;
};

Percentiles Summarize(std::vector<double> ms) {
  if (ms.empty()) return {};
  std::sort(ms.begin(), ms.end());
  auto at = [&](double p) {
    const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(ms.size())));
    return ms[std::min(ms.size() - 1, rank == 0 ? 0 : rank - 1)];
  };
  return {at(0.50), at(0.99), ms.back()};
}

}  // namespace

absl::StatusOr<BestQueryFigures> MeasureBestQuery(const std::string& dir, const BestQueryOptions& options) {
  ScratchDatabase database(dir, "store_bench_best.db");
  absl::StatusOr<std::unique_ptr<RecordStore>> store = RecordStore::Open(database.path());
  if (!store.ok()) return store.status();
  RecordMaker maker(options.workloads, options.devices, options.error_fraction, options.seed);

  BestQueryFigures figures;
  const Clock::time_point fill_start = Clock::now();
  for (int64_t n = 0; n < options.records;) {
    std::vector<server::Record> batch;
    for (; n < options.records && static_cast<int>(batch.size()) < options.fill_batch; ++n)
      batch.push_back(maker.Make(n));
    absl::StatusOr<server::AddOutcome> added = (*store)->AddRecords(std::move(batch));
    if (!added.ok()) return added.status();
    figures.records += added->accepted;
  }
  figures.fill_s = SecondsSince(fill_start);
  figures.fill_records_per_s = static_cast<double>(figures.records) / figures.fill_s;
  figures.database_bytes = database.Bytes();

  std::mt19937_64 rng(options.seed + 1);
  std::vector<double> per_device_ms, any_ms;
  for (int q = 0; q < options.queries; ++q) {
    const std::string& workload = maker.workloads()[rng() % maker.workloads().size()];
    const std::string& device = maker.devices()[rng() % maker.devices().size()];
    Clock::time_point start = Clock::now();
    absl::StatusOr<std::optional<server::Record>> best = (*store)->Best(workload, device);
    per_device_ms.push_back(SecondsSince(start) * 1e3);
    if (!best.ok()) return best.status();
    figures.found += best->has_value() ? 1 : 0;

    start = Clock::now();
    best = (*store)->Best(workload, "");
    any_ms.push_back(SecondsSince(start) * 1e3);
    if (!best.ok()) return best.status();
  }
  figures.queries = options.queries;
  const Percentiles per_device = Summarize(per_device_ms);
  const Percentiles any = Summarize(any_ms);
  figures.p50_ms = per_device.p50;
  figures.p99_ms = per_device.p99;
  figures.max_ms = per_device.max;
  figures.any_p50_ms = any.p50;
  figures.any_p99_ms = any.p99;
  figures.any_max_ms = any.max;
  return figures;
}

absl::StatusOr<IngestFigures> MeasureIngest(const std::string& dir, const IngestOptions& options) {
  ScratchDatabase database(dir, "store_bench_ingest.db");
  absl::StatusOr<std::unique_ptr<RecordStore>> store = RecordStore::Open(database.path());
  if (!store.ok()) return store.status();
  RecordMaker maker(1000, 4, 0.15, options.seed);
  const int per_call = std::max(1, options.records_per_call);
  std::vector<std::vector<server::Record>> calls;
  for (int64_t n = 0; n < options.records;) {
    std::vector<server::Record> call;
    for (; n < options.records && static_cast<int>(call.size()) < per_call; ++n) call.push_back(maker.Make(n));
    calls.push_back(std::move(call));
  }

  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  absl::Status first_error;
  std::mutex error_mutex;
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> writers;
  for (int t = 0; t < std::max(1, options.writer_threads); ++t) {
    writers.emplace_back([&] {
      for (size_t i = next++; i < calls.size() && !failed; i = next++) {
        absl::StatusOr<server::AddOutcome> added = (*store)->AddRecords(calls[i]);
        if (!added.ok()) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!failed.exchange(true)) first_error = added.status();
        }
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  IngestFigures figures;
  figures.seconds = SecondsSince(start);
  if (failed) return first_error;

  absl::StatusOr<int64_t> stored = (*store)->CountRecords();
  if (!stored.ok()) return stored.status();
  if (*stored != options.records)
    return absl::InternalError(absl::StrCat("ingest benchmark: ", *stored, " records stored of ", options.records));
  const server::WriteStats stats = (*store)->GetWriteStats();
  figures.records = *stored;
  figures.records_per_s = static_cast<double>(*stored) / figures.seconds;
  figures.transactions = stats.transactions;
  figures.calls_per_transaction =
      stats.transactions > 0 ? static_cast<double>(stats.writes) / static_cast<double>(stats.transactions) : 0;
  return figures;
}

}  // namespace tuneforge::bench
