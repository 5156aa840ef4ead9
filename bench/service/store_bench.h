// Record store benchmarks, in process (no gRPC): the latency of the best
// query over a large store, and AddRecords throughput with concurrent
// writers (what group commit buys). tuneforge-bench prints them; the
// record store tests run them at a small size.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace tuneforge::bench {

struct BestQueryOptions {
  int64_t records = 1'000'000;
  int workloads = 1000;
  int devices = 4;
  double error_fraction = 0.15;  // records with an error kind (never a best)
  int queries = 2000;            // per kind (per device, any device)
  int fill_batch = 10'000;       // records per AddRecords while filling
  uint64_t seed = 1;
};

struct BestQueryFigures {
  int64_t records = 0;
  double fill_s = 0;              // filling the store through AddRecords
  double fill_records_per_s = 0;
  int64_t database_bytes = 0;
  int queries = 0;
  int found = 0;                  // per-device queries that found a best
  double p50_ms = 0, p99_ms = 0, max_ms = 0;          // Best(workload, device)
  double any_p50_ms = 0, any_p99_ms = 0, any_max_ms = 0;  // Best(workload, "")
};

// Fills a new store in `dir` (removed afterwards) with records spread over
// workloads x devices, then times random Best queries one at a time.
absl::StatusOr<BestQueryFigures> MeasureBestQuery(const std::string& dir, const BestQueryOptions& options = {});

struct IngestOptions {
  int writer_threads = 8;
  int records_per_call = 1;  // a worker's report with one result is the worst case
  int64_t records = 50'000;
  uint64_t seed = 1;
};

struct IngestFigures {
  int64_t records = 0;
  double seconds = 0;
  double records_per_s = 0;
  int64_t transactions = 0;
  double calls_per_transaction = 0;  // the group-commit factor
};

// Writer threads calling AddRecords on a new store in `dir` (removed
// afterwards) until `records` are stored; every record is checked stored.
absl::StatusOr<IngestFigures> MeasureIngest(const std::string& dir, const IngestOptions& options = {});

}  // namespace tuneforge::bench
