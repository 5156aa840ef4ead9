#include "search/task_scheduler/task_scheduler.h"

#include <vector>

#include "gtest/gtest.h"

namespace tuneforge::search {
namespace {

TEST(RoundRobinScheduler, GivesEveryTaskItsTurnWhateverItsState) {
  std::unique_ptr<TaskScheduler> s = MakeTaskScheduler(TaskSchedulerKind::kRoundRobin);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name(), "round-robin");
  std::vector<TaskState> tasks(3);
  tasks[0].trials = 500;  // far ahead: round-robin still gives it its turn
  tasks[1].best_seconds = 1e-3;
  tasks[2].exhausted = true;
  std::vector<size_t> picks;
  for (int i = 0; i < 7; ++i) picks.push_back(s->Next(tasks));
  EXPECT_EQ(picks, (std::vector<size_t>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(RoundRobinScheduler, OneTaskIsAlwaysPicked) {
  std::unique_ptr<TaskScheduler> s = MakeTaskScheduler(TaskSchedulerKind::kRoundRobin);
  std::vector<TaskState> one(1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s->Next(one), 0u);
}

TEST(RoundRobinScheduler, SchedulersOfTwoJobsKeepTheirOwnTurn) {
  std::unique_ptr<TaskScheduler> a = MakeTaskScheduler(TaskSchedulerKind::kRoundRobin);
  std::unique_ptr<TaskScheduler> b = MakeTaskScheduler(TaskSchedulerKind::kRoundRobin);
  std::vector<TaskState> tasks(2);
  EXPECT_EQ(a->Next(tasks), 0u);
  EXPECT_EQ(a->Next(tasks), 1u);
  EXPECT_EQ(b->Next(tasks), 0u);
  EXPECT_EQ(a->Next(tasks), 0u);
}

TEST(ParseTaskScheduler, KnowsBothAndNamesTheKnownOnes) {
  EXPECT_EQ(*ParseTaskScheduler("round-robin"), TaskSchedulerKind::kRoundRobin);
  EXPECT_EQ(*ParseTaskScheduler(""), TaskSchedulerKind::kRoundRobin);
  EXPECT_EQ(*ParseTaskScheduler("gradient"), TaskSchedulerKind::kGradient);
  absl::StatusOr<TaskSchedulerKind> bad = ParseTaskScheduler("annealing");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("round-robin, gradient"), std::string::npos);
}

TEST(SimilarityGroup, TheSameOperatorAtAboutTheSameSizeOnly) {
  // MobileNetV2's first conv (3 input channels, 21.7 MFLOP) and a 1x1 conv
  // of 0.6 MFLOP are both conv2d+bias+relu6, but not alike.
  EXPECT_EQ(SimilarityGroup("conv2d+bias+relu6", 21.7e6), SimilarityGroup("conv2d+bias+relu6", 22.5e6));
  EXPECT_NE(SimilarityGroup("conv2d+bias+relu6", 21.7e6), SimilarityGroup("conv2d+bias+relu6", 0.6e6));
  EXPECT_NE(SimilarityGroup("conv2d+bias+relu6", 21.7e6), SimilarityGroup("conv2d+bias", 21.7e6));
  EXPECT_EQ(SimilarityGroup("", 1e6), "");  // no operator: in no group
}

}  // namespace
}  // namespace tuneforge::search
