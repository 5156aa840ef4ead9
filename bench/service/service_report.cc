// `tuneforge-bench --service`: the service benchmarks of the record store
// and the gRPC server, one table (or --json). Each figure beside its target.
#include "bench/service/service_report.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "bench/service/service_bench.h"
#include "bench/service/store_bench.h"
#include "nlohmann/json.hpp"

namespace tuneforge::bench {
namespace {

std::string ScratchDir() {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "tuneforge-bench-service";
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace

int RunServiceBenchmarks(const ServiceBenchArgs& args) {
  const std::string dir = ScratchDir();
  nlohmann::ordered_json out;
  int failures = 0;
  auto fail = [&](const char* what, const absl::Status& s) {
    std::fprintf(stderr, "tuneforge-bench: %s failed: %s\n", what, std::string(s.message()).c_str());
    ++failures;
  };

  ServiceIngestOptions ingest;
  if (args.quick) ingest.trials = 4000;
  absl::StatusOr<ServiceIngestFigures> in = MeasureServiceIngest(dir, ingest);
  if (!in.ok()) fail("ingest", in.status());

  absl::StatusOr<DispatchFigures> dispatch = MeasureDispatchOverhead(dir);
  if (!dispatch.ok()) fail("dispatch", dispatch.status());

  BestQueryOptions best;
  if (args.quick) best.records = 100'000;
  absl::StatusOr<BestQueryFigures> query = MeasureBestQuery(dir, best);
  if (!query.ok()) fail("best query", query.status());

  IngestOptions store_ingest;
  absl::StatusOr<IngestFigures> store = MeasureIngest(dir, store_ingest);
  if (!store.ok()) fail("store ingest", store.status());

  if (args.json) {
    if (in.ok())
      out["ingest"] = {{"workers", in->workers},           {"results", in->stored},
                       {"seconds", in->seconds},           {"results_per_s", in->results_per_s},
                       {"retimed", in->updated},
                       {"lost", in->reported - in->stored - in->updated}, {"target_results_per_s", 2000}};
    if (dispatch.ok())
      out["dispatch"] = {{"tasks", dispatch->tasks},
                         {"ms_per_candidate", dispatch->ms_per_candidate},
                         {"lease_ms_median", dispatch->lease_ms_median},
                         {"report_ms_median", dispatch->report_ms_median}};
    if (query.ok())
      out["best_query"] = {{"records", query->records}, {"p50_ms", query->p50_ms},
                           {"p99_ms", query->p99_ms},   {"max_ms", query->max_ms},
                           {"any_device_p99_ms", query->any_p99_ms}, {"target_p99_ms", 5}};
    if (store.ok())
      out["store_ingest"] = {{"writer_threads", store_ingest.writer_threads},
                             {"records_per_s", store->records_per_s},
                             {"calls_per_transaction", store->calls_per_transaction}};
    std::cout << out.dump(2) << "\n";
    return failures == 0 ? 0 : 1;
  }
  std::printf("tuneforge-bench --service   (server and simulated workers in this process, over "
              "127.0.0.1)\n\n");
  if (in.ok())
    std::printf("ingest: %d workers reported %lld results in %.2f s: %.0f results/s stored "
                "(target >= 2000/s, %.2fx), %lld re-timings applied, %lld lost\n",
                in->workers, static_cast<long long>(in->stored), in->seconds, in->results_per_s,
                in->results_per_s / 2000.0, static_cast<long long>(in->updated),
                static_cast<long long>(in->reported - in->stored - in->updated));
  if (dispatch.ok())
    std::printf("dispatch overhead: %.2f ms per candidate (1 worker, 1 task per lease, %d tasks); "
                "lease %.2f ms, report %.2f ms (medians)\n",
                dispatch->ms_per_candidate, dispatch->tasks, dispatch->lease_ms_median,
                dispatch->report_ms_median);
  if (query.ok())
    std::printf("best query over %lld records: p50 %.3f ms, p99 %.3f ms (target <= 5 ms, %.2fx), "
                "max %.3f ms; any device: p99 %.3f ms\n",
                static_cast<long long>(query->records), query->p50_ms, query->p99_ms,
                query->p99_ms / 5.0, query->max_ms, query->any_p99_ms);
  if (store.ok())
    std::printf("store ingest in process: %.0f records/s with %d writer threads, %.1f calls per "
                "transaction (group commit)\n",
                store->records_per_s, store_ingest.writer_threads, store->calls_per_transaction);
  return failures == 0 ? 0 : 1;
}

}  // namespace tuneforge::bench
