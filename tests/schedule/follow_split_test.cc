#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/schedule/state.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IterSummary;

// Step 0 splits C's i (128) into 4 x [2, 4, 4]; step 1 splits j (64) by [8].
State TiledMatmulRelu() {
  State state(testing::MatmulRelu(128, 64, 32));
  EXPECT_TRUE(state.Apply(SplitStep{2, 0, {2, 4, 4}, true}).ok());
  EXPECT_TRUE(state.Apply(SplitStep{2, 4, {8}, true}).ok());
  return state;
}

TEST(FollowSplitTest, CopiesAllLengthsWhenNSplitIsTheirCount) {
  State state = TiledMatmulRelu();
  ASSERT_TRUE(state.Apply(FollowSplitStep{3, 0, 0, 3}).ok());
  EXPECT_THAT(IterSummary(state.stage(3)),
              ElementsAre("i.0:4 spatial", "i.1:2 spatial", "i.2:4 spatial", "i.3:4 spatial",
                          "j:64 spatial"));
}

TEST(FollowSplitTest, FewerPartsMultiplyTheInnerLengths) {
  State state = TiledMatmulRelu();
  ASSERT_TRUE(state.Apply(FollowSplitStep{3, 0, 0, 2}).ok());  // [2, 4*4]
  EXPECT_THAT(IterSummary(state.stage(3)),
              ElementsAre("i.0:4 spatial", "i.1:2 spatial", "i.2:16 spatial", "j:64 spatial"));
  State one = TiledMatmulRelu();
  ASSERT_TRUE(one.Apply(FollowSplitStep{3, 1, 0, 1}).ok());  // [2*4*4] on j
  EXPECT_THAT(IterSummary(one.stage(3)),
              ElementsAre("i:128 spatial", "j.0:2 spatial", "j.1:32 spatial"));
}

TEST(FollowSplitTest, OneMorePartThanLengthsAddsAUnitLoop) {
  State state = TiledMatmulRelu();
  ASSERT_TRUE(state.Apply(FollowSplitStep{3, 1, 1, 2}).ok());  // [8, 1]
  EXPECT_THAT(IterSummary(state.stage(3)),
              ElementsAre("i:128 spatial", "j.0:8 spatial", "j.1:8 spatial", "j.2:1 spatial"));
}

TEST(FollowSplitTest, ErrorsNameTheSourceStep) {
  State state = TiledMatmulRelu();
  EXPECT_THAT(state.Apply(FollowSplitStep{3, 0, 2, 1}).ToString(),
              HasSubstr("follow_split (step 2): src_step 2 is not an earlier step; this step is "
                        "number 2, so it must be in 0..1"));
  EXPECT_THAT(
      state.Apply(FollowSplitStep{3, 0, 0, 0}).ToString(),
      HasSubstr("n_split 0 out of range; step 0 has 3 lengths, so n_split must be in 1..4"));
  EXPECT_THAT(state.Apply(FollowSplitStep{3, 0, 0, 5}).ToString(),
              HasSubstr("n_split 5 out of range"));
  ASSERT_TRUE(state.Apply(ReorderStep{3, {1, 0}}).ok());
  EXPECT_THAT(state.Apply(FollowSplitStep{3, 0, 2, 1}).ToString(),
              HasSubstr("follow_split (step 3): src_step 2 is a reorder step; it must name a "
                        "split step"));
  EXPECT_THAT(state.Apply(FollowSplitStep{3, 7, 0, 1}).ToString(),
              HasSubstr("iterator 7 out of range; stage 'D' (3) has 2 iterators"));
}

TEST(FollowFusedSplitTest, FactorIsTheProductOfOneLevelOfSeveralSplits) {
  State state = TiledMatmulRelu();
  // level 0: lengths[0] of step 0 (2) times lengths[0] of step 1 (8) = 16.
  ASSERT_TRUE(state.Apply(FollowFusedSplitStep{3, 0, {0, 1}, 0, true}).ok());
  EXPECT_THAT(IterSummary(state.stage(3)),
              ElementsAre("i.0:8 spatial", "i.1:16 spatial", "j:64 spatial"));
  const auto& rel = std::get<SplitRelation>(state.stage(3).relations[0]);
  EXPECT_TRUE(rel.inner_to_outer);
}

TEST(FollowFusedSplitTest, NpartsMakesTheFactorTheOuterExtent) {
  State state = TiledMatmulRelu();
  ASSERT_TRUE(state.Apply(FollowFusedSplitStep{3, 1, {0}, 2, false}).ok());  // 4 outer parts
  EXPECT_THAT(IterSummary(state.stage(3)),
              ElementsAre("i:128 spatial", "j.0:4 spatial", "j.1:16 spatial"));
  EXPECT_FALSE(std::get<SplitRelation>(state.stage(3).relations[0]).inner_to_outer);
}

TEST(FollowFusedSplitTest, ErrorsNameTheFieldAndRange) {
  State state = TiledMatmulRelu();
  EXPECT_THAT(state.Apply(FollowFusedSplitStep{3, 0, {}, 0, true}).ToString(),
              HasSubstr("follow_fused_split (step 2): src_steps is empty"));
  EXPECT_THAT(state.Apply(FollowFusedSplitStep{3, 0, {0, 1}, 1, true}).ToString(),
              HasSubstr("level 1 out of range; split step 1 has 1 lengths (levels 0..0)"));
  EXPECT_THAT(state.Apply(FollowFusedSplitStep{3, 0, {0, 4}, 0, true}).ToString(),
              HasSubstr("src_steps entry 4 is not an earlier step"));
}

}  // namespace
}  // namespace tuneforge::schedule
