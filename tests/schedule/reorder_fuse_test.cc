#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/schedule/state.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IterSummary;

TEST(ReorderTest, PermutesTheLoopsAndKeepsAnnotations) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {8}, true}).ok());
  ASSERT_TRUE(state.Apply(AnnotationStep{2, 1, IterAnnotation::kUnroll}).ok());
  ASSERT_TRUE(state.Apply(ReorderStep{2, {0, 2, 3, 1}}).ok());
  EXPECT_THAT(IterSummary(state.stage(2)),
              ElementsAre("i.0:8 spatial", "j:32 spatial", "k:16 reduce", "i.1:8 spatial unroll"));
}

TEST(ReorderTest, OrderMustBeAPermutation) {
  State state(testing::Matmul(64, 32, 16));
  EXPECT_THAT(state.Apply(ReorderStep{2, {1, 0}}).ToString(),
              HasSubstr("reorder (step 0): order [1, 0] has 2 entries but stage 'C' (2) has 3 "
                        "iterators; list each of 0..2 exactly once"));
  EXPECT_THAT(state.Apply(ReorderStep{2, {0, 1, 1}}).ToString(),
              HasSubstr("order [0, 1, 1] names iterator 1 twice"));
  EXPECT_THAT(state.Apply(ReorderStep{2, {0, 3, 1}}).ToString(),
              HasSubstr("order [0, 3, 1] names iterator 3, out of range; stage 'C' (2) has "
                        "iterators 0..2"));
  EXPECT_THAT(state.Apply(ReorderStep{0, {}}).ToString(), HasSubstr("is a placeholder"));
}

TEST(FuseTest, FusesConsecutiveLoopsIntoOneNamedAfterThem) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {8}, true}).ok());
  ASSERT_TRUE(state.Apply(FuseStep{2, {0, 1, 2}}).ok());
  const Stage& c = state.stage(2);
  EXPECT_THAT(IterSummary(c), ElementsAre("i.0@i.1@j:2048 spatial", "k:16 reduce"));
  ASSERT_EQ(c.relations.size(), 2u);
  const auto& fuse = std::get<FuseRelation>(c.relations[1]);
  EXPECT_EQ(fuse.child, c.iters[0].node);
  ASSERT_EQ(fuse.parents.size(), 3u);
  EXPECT_EQ(c.nodes[fuse.parents[0]].name, "i.0");
  EXPECT_EQ(c.nodes[fuse.parents[2]].name, "j");
}

TEST(FuseTest, ReductionLoopsFuseWithEachOther) {
  State state(testing::TwoAxisReduce(4, 6, 8));
  ASSERT_TRUE(state.Apply(FuseStep{1, {1, 2}}).ok());
  EXPECT_THAT(IterSummary(state.stage(1)), ElementsAre("i:4 spatial", "r1@r2:48 reduce"));
}

TEST(FuseTest, FusingOneLoopChangesNothing) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(FuseStep{2, {1}}).ok());
  EXPECT_THAT(IterSummary(state.stage(2)),
              ElementsAre("i:64 spatial", "j:32 spatial", "k:16 reduce"));
  EXPECT_TRUE(state.stage(2).relations.empty());
  EXPECT_EQ(state.steps().size(), 1u);  // still recorded: replay must see the same steps
}

TEST(FuseTest, StagesAttachedToAFusedLoopMoveToTheFusedLoop) {
  State state(testing::MatmulRelu(64, 64, 64));
  ASSERT_TRUE(state.Apply(SplitStep{3, 1, {8}, true}).ok());  // D: i, j.0, j.1
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 1}).ok());      // C at D's j.0
  ASSERT_TRUE(state.Apply(FuseStep{3, {0, 1}}).ok());
  const auto& at = std::get<ComputeAtIter>(state.stage(2).location);
  EXPECT_EQ(state.stage(3).nodes[at.target_node].name, "i@j.0");
  EXPECT_EQ(state.stage(3).IterIndexOfNode(at.target_node), 0);
}

TEST(FuseTest, RejectsNonConsecutiveMixedOrAnnotatedLoops) {
  State state(testing::Matmul(64, 32, 16));
  EXPECT_THAT(state.Apply(FuseStep{2, {0, 2}}).ToString(),
              HasSubstr("fuse (step 0): iterators [0, 2] are not consecutive"));
  EXPECT_THAT(state.Apply(FuseStep{2, {1, 0}}).ToString(), HasSubstr("are not consecutive"));
  EXPECT_THAT(state.Apply(FuseStep{2, {1, 2}}).ToString(),
              HasSubstr("iterators [1, 2] mix spatial and reduction loops; fuse only loops of "
                        "one kind"));
  EXPECT_THAT(state.Apply(FuseStep{2, {}}).ToString(), HasSubstr("iters is empty"));
  EXPECT_THAT(state.Apply(FuseStep{2, {2, 3}}).ToString(), HasSubstr("iterator 3 out of range"));
  ASSERT_TRUE(state.Apply(AnnotationStep{2, 1, IterAnnotation::kParallel}).ok());
  EXPECT_THAT(state.Apply(FuseStep{2, {0, 1}}).ToString(),
              HasSubstr("iterator 1 ('j') of stage 'C' (2) is annotated 'parallel'; fuse before "
                        "annotating"));
}

}  // namespace
}  // namespace tuneforge::schedule
