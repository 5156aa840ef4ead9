// A tuning's curve as the bench reads it: the best at a trial count is the
// job's best then, re-timing's corrections included, and a level is reached
// only where the curve stays at or above it.
#include "bench/search/tuning_curve.h"

#include <gtest/gtest.h>

namespace tuneforge::bench {
namespace {

// Rounds of 64: a lucky first timing at trial 192 (480 GFLOPS) that the
// next round's re-timing brings down to 456, then a real 470 at trial 320.
const std::vector<Point> kCurve = {
    {64, 338.0, 10.0}, {128, 393.0, 20.0}, {192, 480.0, 30.0}, {256, 456.0, 40.0}, {320, 470.0, 50.0}};

TEST(TuningCurveTest, TheBestAtATrialCountIsTheJobsBestThenNotTheHighestLineSoFar) {
  EXPECT_EQ(BestBy(kCurve, 10), 0.0);
  EXPECT_EQ(BestBy(kCurve, 191), 393.0);
  EXPECT_EQ(BestBy(kCurve, 192), 480.0);
  EXPECT_EQ(BestBy(kCurve, 300), 456.0);
  EXPECT_EQ(BestBy(kCurve, 1000), 470.0);
}

TEST(TuningCurveTest, TheBestAtATimeIsTheJobsBestThen) {
  EXPECT_EQ(BestAt(kCurve, 5.0), 0.0);
  EXPECT_EQ(BestAt(kCurve, 35.0), 480.0);
  EXPECT_EQ(BestAt(kCurve, 45.0), 456.0);
}

TEST(TuningCurveTest, ALevelIsReachedWhereTheCurveStaysAtOrAboveIt) {
  // 460 was first seen at trial 192, but that best was corrected below it.
  std::optional<Point> p = FirstHolding(kCurve, 460.0);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->trials, 320);
  EXPECT_EQ(p->seconds, 50.0);
  p = FirstHolding(kCurve, 450.0);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->trials, 192);
  EXPECT_FALSE(FirstHolding(kCurve, 475.0).has_value());
  EXPECT_FALSE(FirstHolding({}, 1.0).has_value());
}

}  // namespace
}  // namespace tuneforge::bench
