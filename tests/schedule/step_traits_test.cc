// What each step kind declares it does (step_traits.h): the replay cache
// keys on the DAG-rewriting prefix and Apply skips bound inference for
// annotations and, where no other stage depends on them, for loop edits.
#include "common/schedule/step_traits.h"

#include <gtest/gtest.h>

#include <variant>

namespace tuneforge::schedule {
namespace {

// Every alternative of Step has its trait (a new kind fails to compile here
// and in StepReachOf until it has one).
template <class... S>
constexpr bool AllHaveTraits(std::variant<S...>*) {
  return ((sizeof(StepTraits<S>) > 0) && ...);
}
static_assert(AllHaveTraits(static_cast<Step*>(nullptr)));

TEST(StepTraitsTest, EachKindSaysHowFarItReaches) {
  EXPECT_EQ(StepReachOf(SplitStep{}), StepReach::kOwnLoops);
  EXPECT_EQ(StepReachOf(FollowSplitStep{}), StepReach::kOwnLoops);
  EXPECT_EQ(StepReachOf(FollowFusedSplitStep{}), StepReach::kOwnLoops);
  EXPECT_EQ(StepReachOf(ReorderStep{}), StepReach::kOwnLoops);
  EXPECT_EQ(StepReachOf(FuseStep{}), StepReach::kOwnLoops);
  EXPECT_EQ(StepReachOf(AnnotationStep{}), StepReach::kAnnotation);
  EXPECT_EQ(StepReachOf(PragmaStep{}), StepReach::kAnnotation);
  EXPECT_EQ(StepReachOf(StorageAlignStep{}), StepReach::kAnnotation);
  EXPECT_EQ(StepReachOf(ComputeAtStep{}), StepReach::kPlacement);
  EXPECT_EQ(StepReachOf(ComputeRootStep{}), StepReach::kPlacement);
  EXPECT_EQ(StepReachOf(ComputeInlineStep{}), StepReach::kPlacement);
  EXPECT_TRUE(RewritesDag(CacheReadStep{}));
  EXPECT_TRUE(RewritesDag(CacheWriteStep{}));
  EXPECT_TRUE(RewritesDag(RfactorStep{}));
  EXPECT_FALSE(RewritesDag(SplitStep{}));
  EXPECT_FALSE(RewritesDag(ComputeInlineStep{}));
}

}  // namespace
}  // namespace tuneforge::schedule
