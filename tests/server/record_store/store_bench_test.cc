// The store benchmarks (bench/service/store_bench.h) at a small size, so
// they keep working; TUNEFORGE_STORE_BENCH_RECORDS=1000000 runs the full
// best-query benchmark and prints its figures.
#include "bench/service/store_bench.h"

#include <cstdlib>
#include <iostream>

#include "gtest/gtest.h"
#include "tests/server/record_store/store_test_util.h"

namespace tuneforge::server {
namespace {

using testing::TempDir;

int64_t RecordsFromEnvironment(int64_t fallback) {
  const char* value = std::getenv("TUNEFORGE_STORE_BENCH_RECORDS");
  return value != nullptr ? std::atoll(value) : fallback;
}

TEST(StoreBenchTest, BestQueryOverAFilledStore) {
  TempDir dir;
  bench::BestQueryOptions options;
  options.records = RecordsFromEnvironment(20'000);
  options.queries = 500;
  absl::StatusOr<bench::BestQueryFigures> figures = bench::MeasureBestQuery(dir.path(), options);
  ASSERT_TRUE(figures.ok()) << figures.status();
  std::cout << "best query over " << figures->records << " records (" << figures->database_bytes / (1 << 20)
            << " MiB, filled in " << figures->fill_s << " s, " << figures->fill_records_per_s
            << " records/s): per device p50 " << figures->p50_ms << " ms, p99 " << figures->p99_ms << " ms, max "
            << figures->max_ms << " ms; any device p50 " << figures->any_p50_ms << " ms, p99 "
            << figures->any_p99_ms << " ms\n";
  EXPECT_EQ(figures->records, options.records);
  EXPECT_EQ(figures->queries, options.queries);
  // ~20 records per (workload, device) of which 85% correct: nearly all find one.
  EXPECT_GT(figures->found, options.queries * 9 / 10);
  EXPECT_LE(figures->p50_ms, figures->p99_ms);
  EXPECT_LE(figures->p99_ms, figures->max_ms);
  EXPECT_GT(figures->p50_ms, 0);
}

TEST(StoreBenchTest, IngestWithConcurrentWriters) {
  TempDir dir;
  bench::IngestOptions options;
  options.writer_threads = 8;
  options.records = 4000;
  absl::StatusOr<bench::IngestFigures> figures = bench::MeasureIngest(dir.path(), options);
  ASSERT_TRUE(figures.ok()) << figures.status();
  std::cout << "ingest: " << figures->records << " records by " << options.writer_threads << " threads, "
            << options.records_per_call << " per call: " << figures->records_per_s << " records/s, "
            << figures->calls_per_transaction << " calls per transaction\n";
  EXPECT_EQ(figures->records, options.records);
  EXPECT_GT(figures->records_per_s, 0);
  EXPECT_GE(figures->calls_per_transaction, 1.0);
}

}  // namespace
}  // namespace tuneforge::server
