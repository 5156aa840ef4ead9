// Eight threads adding and reading at once: every read sees a consistent
// committed state, and the totals add up at the end.
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/server/record_store/store_test_util.h"

namespace tuneforge::server {
namespace {

using testing::MakeRecord;
using testing::OpenOrFail;
using testing::TempDir;

constexpr int kThreads = 8;
constexpr int kCallsPerThread = 60;
constexpr int kJobs = 4;

struct Expected {
  std::mutex mutex;
  int64_t records = 0;
  std::map<std::string, int64_t> errors_per_job;
  std::map<std::string, double> best_per_key;  // "wk|dev" -> fastest correct seconds
};

void AddAndRead(RecordStore& store, int thread, Expected& expected, std::atomic<int>& failures) {
  int64_t last_count = 0;
  std::vector<Record> mine;
  for (int i = 0; i < kCallsPerThread; ++i) {
    std::vector<Record> batch;
    for (int j = 0; j < 1 + i % 3; ++j) {
      const bool error = (i + j) % 7 == 0;
      const double seconds = 0.001 * (1 + (thread * 31 + i * 7 + j * 3) % 97);
      batch.push_back(MakeRecord(absl::StrCat("t", thread, "-", i, "-", j), absl::StrCat("wk-", i % 5),
                                 absl::StrCat("dev-", thread % 2), seconds, error ? "wrong_answer" : "none",
                                 absl::StrCat("job-", thread % kJobs)));
    }
    // Now and then a retried report: one of this thread's earlier records.
    if (i % 10 == 9) batch.push_back(mine[static_cast<size_t>(i) % mine.size()]);
    absl::StatusOr<AddOutcome> added = store.AddRecords(batch);
    if (!added.ok() || added->duplicate != (i % 10 == 9 ? 1 : 0)) {
      ADD_FAILURE() << (added.ok() ? "wrong duplicate count" : added.status().ToString());
      ++failures;
      return;
    }
    {
      std::lock_guard<std::mutex> lock(expected.mutex);
      for (int k = 0; k < added->accepted; ++k) {
        const Record& r = batch[static_cast<size_t>(k)];
        ++expected.records;
        if (r.error_kind != measure::MeasureErrorKind::kNone) {
          ++expected.errors_per_job[r.job_id];
        } else {
          const std::string key = r.workload_key + "|" + r.device_key;
          auto it = expected.best_per_key.find(key);
          if (it == expected.best_per_key.end() || r.median_seconds < it->second)
            expected.best_per_key[key] = r.median_seconds;
        }
      }
    }
    mine.insert(mine.end(), batch.begin(), batch.begin() + added->accepted);

    // Reads between writes: what this thread wrote is visible, counts only grow.
    absl::StatusOr<int64_t> count = store.CountRecords();
    absl::StatusOr<JobTotals> totals = store.Totals(absl::StrCat("job-", thread % kJobs));
    absl::StatusOr<std::optional<Record>> best = store.Best(absl::StrCat("wk-", i % 5), "");
    if (!count.ok() || !totals.ok() || !best.ok()) {
      ADD_FAILURE() << "a read failed";
      ++failures;
      return;
    }
    EXPECT_GE(*count, last_count);
    EXPECT_GE(*count, static_cast<int64_t>(mine.size()));
    last_count = *count;
    EXPECT_LE(totals->errors, totals->trials);
    if (totals->best) {
      EXPECT_STREQ(measure::ErrorKindName(totals->best->error_kind), "none");
    }
    if (*best) {
      EXPECT_STREQ(measure::ErrorKindName((*best)->error_kind), "none");
    }
  }
}

TEST(ConcurrencyTest, EightThreadsAddingAndQueryingStayConsistent) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("concurrent.db"));
  ASSERT_NE(store, nullptr);
  Expected expected;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] { AddAndRead(*store, t, expected, failures); });
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(failures.load(), 0);

  EXPECT_EQ(*store->CountRecords(), expected.records);
  int64_t trials = 0;
  for (int j = 0; j < kJobs; ++j) {
    const std::string job = absl::StrCat("job-", j);
    absl::StatusOr<JobTotals> totals = store->Totals(job);
    ASSERT_TRUE(totals.ok()) << totals.status();
    trials += totals->trials;
    EXPECT_EQ(totals->errors, expected.errors_per_job[job]) << job;
  }
  EXPECT_EQ(trials, expected.records);
  for (const auto& [key, seconds] : expected.best_per_key) {
    const size_t bar = key.find('|');
    auto best = store->Best(key.substr(0, bar), key.substr(bar + 1));
    ASSERT_TRUE(best.ok() && best->has_value()) << key;
    EXPECT_DOUBLE_EQ((*best)->median_seconds, seconds) << key;
  }
  // Group commit happened: fewer transactions than write calls.
  const WriteStats stats = store->GetWriteStats();
  EXPECT_EQ(stats.writes, kThreads * kCallsPerThread);
  EXPECT_LT(stats.transactions, stats.writes);
}

}  // namespace
}  // namespace tuneforge::server
