// A workload's build deadline follows its candidates' compile times: none
// until enough are known, then a multiple of their median, never under the
// floor, and from the latest compiles only.
#include "server/core/build_deadline.h"

#include <gtest/gtest.h>

namespace tuneforge::server {
namespace {

TEST(BuildDeadlineTest, NoDeadlineUntilEnoughCompilesAreKnown) {
  CompileTimes times;
  for (int i = 0; i + 1 < kMinCompilesForDeadline; ++i) times.Add(500);
  EXPECT_EQ(times.DeadlineSeconds(), 0);
  times.Add(500);
  EXPECT_DOUBLE_EQ(times.DeadlineSeconds(), kBuildDeadlineFactor * 0.5);
}

TEST(BuildDeadlineTest, TheMedianDecidesNotTheSlowOnes) {
  CompileTimes times;
  for (int i = 0; i < 40; ++i) times.Add(400);
  for (int i = 0; i < 20; ++i) times.Add(25000);  // a third pathological: the median holds
  EXPECT_DOUBLE_EQ(times.DeadlineSeconds(), kBuildDeadlineFactor * 0.4);
}

TEST(BuildDeadlineTest, QuickCompilesStillGetTheFloor) {
  CompileTimes times;
  for (int i = 0; i < 64; ++i) times.Add(20);
  EXPECT_DOUBLE_EQ(times.DeadlineSeconds(), kMinBuildDeadlineS);
  times.Add(0);   // not a compile time: ignored
  times.Add(-1);
  EXPECT_DOUBLE_EQ(times.DeadlineSeconds(), kMinBuildDeadlineS);
}

TEST(BuildDeadlineTest, OnlyTheLatestCompilesCount) {
  CompileTimes times;
  for (int i = 0; i < 300; ++i) times.Add(100);
  for (int i = 0; i < 256; ++i) times.Add(800);  // the search moved to bigger programs
  EXPECT_DOUBLE_EQ(times.DeadlineSeconds(), kBuildDeadlineFactor * 0.8);
}

}  // namespace
}  // namespace tuneforge::server
