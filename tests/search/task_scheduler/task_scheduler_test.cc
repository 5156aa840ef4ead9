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
  const double outputs = 32 * 112 * 112;
  EXPECT_EQ(SimilarityGroup("conv2d+bias+relu6", 21.7e6, outputs), SimilarityGroup("conv2d+bias+relu6", 22.5e6, outputs));
  EXPECT_NE(SimilarityGroup("conv2d+bias+relu6", 21.7e6, outputs), SimilarityGroup("conv2d+bias+relu6", 0.6e6, outputs));
  EXPECT_NE(SimilarityGroup("conv2d+bias+relu6", 21.7e6, outputs), SimilarityGroup("conv2d+bias", 21.7e6, outputs));
  EXPECT_EQ(SimilarityGroup("", 1e6, 1), "");  // no operator: in no group
}

TEST(SimilarityGroup, TheSameFlopsWithLessWorkPerOutputIsNotSimilar) {
  // ResNet's stem (7x7 over 3 channels, stride 2) and a 3x3 conv over 64
  // channels at 56x56: the same FLOPs, a quarter of the work per output.
  const double stem_flops = 2.0 * 64 * 112 * 112 * 3 * 7 * 7, stem_outputs = 64 * 112 * 112;
  const double conv_flops = 2.0 * 64 * 56 * 56 * 64 * 3 * 3, conv_outputs = 64 * 56 * 56;
  EXPECT_NE(SimilarityGroup("conv2d+bias+relu", stem_flops, stem_outputs),
            SimilarityGroup("conv2d+bias+relu", conv_flops, conv_outputs));
  // A 3x3 conv over twice the channels at a quarter of the pixels: alike.
  EXPECT_EQ(SimilarityGroup("conv2d+bias+relu", conv_flops, conv_outputs),
            SimilarityGroup("conv2d+bias+relu", 2.0 * 128 * 28 * 28 * 128 * 3 * 3, 128 * 28 * 28));
}

}  // namespace
}  // namespace tuneforge::search
