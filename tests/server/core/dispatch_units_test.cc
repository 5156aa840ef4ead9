// The dispatcher's parts on their own: the task book (held tasks after a
// restart, leases, lost tasks, lease budgets, a final comparison leased
// whole) and the worker table (silent workers, lost ones aging out of the
// list).
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
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

// One workload's final comparison: forwards then backwards, stamped alike.
std::vector<TaskRow> Comparison(const std::string& job, const std::string& workload, int64_t stamp,
                                int first_seq) {
  std::vector<TaskRow> rows;
  for (int i = 0; i < 6; ++i) {
    TaskRow row = Row(absl::StrCat(job, "-t", first_seq + i), job);
    row.workload_key = workload;
    row.task.compared_at_unix_ms = stamp;
    rows.push_back(row);
  }
  return rows;
}

std::vector<std::string> Ids(const LeaseGrant& lease) {
  std::vector<std::string> ids;
  for (const MeasureTask& t : lease.tasks) ids.push_back(t.task_id);
  return ids;
}

// Its medians are compared with each other: split over two leases (two
// workers, or one worker minutes apart) they would mix two moments.
TEST(TaskBookTest, AFinalComparisonOfOneWorkloadIsLeasedWholePastTheTaskLimit) {
  TaskBook book(3, 1000);
  std::vector<TaskRow> rows = Comparison("job-1", "wk-a", 7, 8);  // job-1-t8 .. t13
  for (TaskRow& row : Comparison("job-1", "wk-b", 7, 14)) rows.push_back(row);
  rows.push_back(Row("job-1-t20"));  // an ordinary task queued behind them
  book.Add(rows);
  std::optional<LeaseGrant> first = book.Lease("w1", "dev", 3, 0);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(Ids(*first), (std::vector<std::string>{"job-1-t8", "job-1-t9", "job-1-t10", "job-1-t11",
                                                   "job-1-t12", "job-1-t13"}));
  std::optional<LeaseGrant> second = book.Lease("w2", "dev", 2, 0);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->tasks.size(), 6u);  // wk-b's group, and not the task behind it
  EXPECT_EQ(second->tasks.back().task_id, "job-1-t19");
  // A lost lease goes back whole and in its order (the ids sort otherwise):
  // the next lease times it forwards then backwards again.
  book.Finish("job-1-t8");
  EXPECT_EQ(book.ReturnLease(first->lease_id, true, nullptr), 5);
  std::optional<LeaseGrant> again = book.Lease("w2", "dev", 1, 0);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(Ids(*again),
            (std::vector<std::string>{"job-1-t9", "job-1-t10", "job-1-t11", "job-1-t12", "job-1-t13"}));
  std::optional<LeaseGrant> last = book.Lease("w1", "dev", 8, 0);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(Ids(*last), (std::vector<std::string>{"job-1-t20"}));
}

TEST(TaskBookTest, ComparisonsOfTwoJobsAreEachLeasedWhole) {
  TaskBook book(3, 1000);
  std::vector<TaskRow> rows = Comparison("job-1", "wk", 7, 1);
  for (TaskRow& row : Comparison("job-2", "wk", 9, 1)) rows.push_back(row);
  book.Add(rows);
  std::optional<LeaseGrant> lease = book.Lease("w1", "dev", 1, 0);
  ASSERT_TRUE(lease.has_value());
  EXPECT_EQ(lease->tasks.size(), 6u);
  for (const MeasureTask& t : lease->tasks) EXPECT_EQ(t.compared_at_unix_ms, 7);
  lease = book.Lease("w1", "dev", 2, 0);
  ASSERT_TRUE(lease.has_value());
  EXPECT_EQ(lease->tasks.size(), 6u);
  for (const MeasureTask& t : lease->tasks) EXPECT_EQ(t.compared_at_unix_ms, 9);
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
