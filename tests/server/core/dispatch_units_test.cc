// The dispatcher's parts on their own: the task book (held tasks after a
// restart, leases, lost tasks, lease budgets) and the worker table (silent
// workers, lost ones aging out of the list).
#include <gtest/gtest.h>

#include "server/core/service_constants.h"
#include "server/core/task_book.h"
#include "server/core/worker_table.h"

namespace tuneforge::server {
namespace {

TaskRow Row(const std::string& id, const std::string& job = "job-1", const std::string& key = "dev") {
  TaskRow row;
  row.task_id = id;
  row.job_id = job;
  row.device_key = key;
  row.workload_key = "wk";
  row.task.task_id = id;
  return row;
}

TEST(TaskBookTest, HeldTasksAreNotLeasedBeforeTheirTimeAndAReportedOneNeverIs) {
  TaskBook book(3, 1000);
  book.Add({Row("t0"), Row("t1")}, /*hold_until_ms=*/5000);
  EXPECT_EQ(book.Outstanding("job-1"), 2);  // the job waits for them
  EXPECT_FALSE(book.HasQueued("dev"));
  EXPECT_FALSE(book.Lease("w1", "dev", 8, 1000).has_value());
  book.Finish("t0");  // a late report of the old lease lands first
  EXPECT_FALSE(book.ReleaseHeld(4999));
  EXPECT_TRUE(book.ReleaseHeld(5000));
  std::optional<LeaseGrant> lease = book.Lease("w1", "dev", 8, 5000);
  ASSERT_TRUE(lease.has_value());
  ASSERT_EQ(lease->tasks.size(), 1u);
  EXPECT_EQ(lease->tasks[0].task_id, "t1");
  EXPECT_EQ(book.Outstanding("job-1"), 1);
}

TEST(TaskBookTest, ALeaseOutOfAttemptsGivesItsTaskUpAsLost) {
  TaskBook book(2, 1000);
  book.Add({Row("t0")});
  std::vector<LostTask> lost;
  std::optional<LeaseGrant> first = book.Lease("w1", "dev", 1, 0);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(book.ReturnLease(first->lease_id, true, &lost), 1);  // back in the queue
  std::optional<LeaseGrant> second = book.Lease("w2", "dev", 1, 0);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(book.ReturnLease(second->lease_id, true, &lost), 0);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].task.row.task_id, "t0");
  EXPECT_EQ(lost[0].worker_id, "w2");
  EXPECT_EQ(lost[0].task.attempts, 2);
}

TEST(TaskBookTest, LeaseBudgetGrowsWithEachTasksTimeout) {
  MeasureTask quick, slow, unset;
  quick.measure.timeout_s = 1;
  slow.measure.timeout_s = 5;
  unset.measure.timeout_s = 0;
  EXPECT_EQ(LeaseBudgetMs({}, kLeaseSlackMs), kLeaseSlackMs);
  EXPECT_EQ(LeaseBudgetMs({quick, slow}, 0), kLeaseMsPerTimeoutS * 6 + 2 * kLeaseBuildMs);
  EXPECT_EQ(LeaseBudgetMs({unset}, 0),
            static_cast<int64_t>(kLeaseMsPerTimeoutS * measure::MeasureOptions{}.timeout_s) + kLeaseBuildMs);
  TaskBook book(3, 100);
  book.Add({Row("t0")});
  std::optional<LeaseGrant> lease = book.Lease("w1", "dev", 1, 1000);
  ASSERT_TRUE(lease.has_value());
  EXPECT_EQ(lease->deadline_unix_ms, 1000 + LeaseBudgetMs(lease->tasks, 100));
  EXPECT_TRUE(book.ExpiredLeases(lease->deadline_unix_ms).empty());
  EXPECT_EQ(book.ExpiredLeases(lease->deadline_unix_ms + 1).size(), 1u);
}

TEST(WorkerTableTest, SilentWorkersAreLostThenLeaveTheList) {
  WorkerTable table(/*lost_after_ms=*/100, /*lost_listed_ms=*/1000);
  DeviceInfo device;
  device.device_key = "dev";
  std::string silent = table.Add(device, 0);
  std::string alive = table.Add(device, 0);
  auto none = [](const std::set<std::string>&) { return 0; };
  table.Find(alive)->last_heartbeat_ms = 150;
  std::vector<std::pair<std::string, WorkerEntry>> gone = table.TakeSilent(150);
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].first, silent);
  EXPECT_EQ(table.Find(silent), nullptr);
  EXPECT_TRUE(table.HasWorkerFor("dev"));

  auto state_of = [&](int64_t now, const std::string& id) {
    for (const WorkerStatus& s : table.List(now, none))
      if (s.id == id) return std::string(WorkerStateName(s.state));
    return std::string();
  };
  EXPECT_EQ(state_of(500, silent), "lost");
  EXPECT_EQ(state_of(1150, silent), "lost");
  EXPECT_EQ(state_of(1151, silent), "");  // listed for lost_listed_ms, then not
  table.AgeOutLost(1151);
  table.Find(alive)->last_heartbeat_ms = 1151;
  EXPECT_EQ(table.List(1151, none).size(), 1u);
  EXPECT_EQ(state_of(1151, alive), "alive");
}

}  // namespace
}  // namespace tuneforge::server
