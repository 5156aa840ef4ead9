#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/schedule/state.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::HasSubstr;

const ComputeAtIter* At(const State& state, int stage) {
  return std::get_if<ComputeAtIter>(&state.stage(stage).location);
}

TEST(ComputeAtTest, StoresTheTargetStageAndTheNodeOfTheLoop) {
  State state(testing::MatmulRelu(64, 64, 64));
  ASSERT_TRUE(state.Apply(SplitStep{3, 0, {8}, true}).ok());
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 1}).ok());
  const ComputeAtIter* at = At(state, 2);
  ASSERT_NE(at, nullptr);
  EXPECT_EQ(at->target_stage, 3);
  EXPECT_EQ(state.stage(3).nodes[at->target_node].name, "i.1");
  // A later reorder of the target keeps the placement on the same loop.
  ASSERT_TRUE(state.Apply(ReorderStep{3, {1, 0, 2}}).ok());
  EXPECT_EQ(state.stage(3).nodes[At(state, 2)->target_node].name, "i.1");
}

TEST(ComputeAtTest, ThroughAnInlinedConsumer) {
  // A -> B -> C -> D: with C inlined, D reads B.
  State state(testing::ElementwiseChain(16, 16));
  ASSERT_TRUE(state.Apply(ComputeInlineStep{2}).ok());
  ASSERT_TRUE(state.Apply(ComputeAtStep{1, 3, 0}).ok());
  EXPECT_EQ(At(state, 1)->target_stage, 3);
}

TEST(ComputeAtTest, InsideAStageHoldingAllConsumers) {
  // B's consumer C sits in D's loop j; B may sit in D's loop i (or j) too.
  State state(testing::ElementwiseChain(16, 16));
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 1}).ok());
  EXPECT_TRUE(state.Apply(ComputeAtStep{1, 3, 0}).ok());
  EXPECT_TRUE(state.Apply(ComputeAtStep{1, 3, 1}).ok());
  EXPECT_TRUE(state.Apply(ComputeAtStep{1, 2, 1}).ok());  // or in C itself
}

TEST(ComputeAtTest, RejectsOutputsSelfPlaceholdersAndNonConsumers) {
  State state(testing::MatmulRelu(64, 64, 64));
  EXPECT_THAT(state.Apply(ComputeAtStep{3, 2, 0}).ToString(),
              HasSubstr("compute_at (step 0): stage 'D' (3) is an output of the program; "
                        "outputs are computed at root"));
  EXPECT_THAT(state.Apply(ComputeAtStep{2, 2, 0}).ToString(),
              HasSubstr("stage 'C' (2) cannot be computed inside its own loop"));
  EXPECT_THAT(state.Apply(ComputeAtStep{2, 1, 0}).ToString(),
              HasSubstr("stage 'B' (1) is a placeholder"));
  EXPECT_THAT(state.Apply(ComputeAtStep{0, 3, 0}).ToString(),
              HasSubstr("stage 'A' (0) is a placeholder"));
  EXPECT_THAT(state.Apply(ComputeAtStep{2, 3, 2}).ToString(),
              HasSubstr("iterator 2 out of range; stage 'D' (3) has 2 iterators (0..1)"));
  State two(testing::TwoConsumers(8, 8));  // X -> B, C -> D
  EXPECT_THAT(two.Apply(ComputeAtStep{1, 2, 0}).ToString(),
              HasSubstr("stage 'B' (1) is read by 'D' (3), which is not computed inside loop 0 "
                        "('i') of 'C' (2)"));
}

TEST(ComputeAtTest, AConsumerOutsideTheLoopIsRejected) {
  // softmax: maxelem is read by exp; with exp inlined, by expsum and out.
  State state(testing::Softmax(8, 16));
  ASSERT_TRUE(state.Apply(ComputeInlineStep{2}).ok());
  EXPECT_THAT(state.Apply(ComputeAtStep{1, 3, 0}).ToString(),
              HasSubstr("stage 'maxelem' (1) is read by 'out' (4), which is not computed inside "
                        "loop 0 ('i') of 'expsum' (3)"));
  // Placing expsum in out's loop i too makes it valid.
  ASSERT_TRUE(state.Apply(ComputeAtStep{3, 4, 0}).ok());
  EXPECT_TRUE(state.Apply(ComputeAtStep{1, 4, 0}).ok());
}

TEST(ComputeAtTest, ACycleOfPlacementsIsRejected) {
  State state(testing::ElementwiseChain(16, 16));
  ASSERT_TRUE(state.Apply(ComputeAtStep{1, 2, 0}).ok());  // B inside C
  // C inside B would put B inside itself (B is not C's consumer either).
  EXPECT_FALSE(state.Apply(ComputeAtStep{2, 1, 0}).ok());
  EXPECT_EQ(At(state, 1)->target_stage, 2);
}

TEST(ComputeRootTest, ResetsThePlacement) {
  State state(testing::MatmulRelu(64, 64, 64));
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 1}).ok());
  ASSERT_TRUE(state.Apply(ComputeRootStep{2}).ok());
  EXPECT_TRUE(std::holds_alternative<ComputeRoot>(state.stage(2).location));
  EXPECT_THAT(state.Apply(ComputeRootStep{1}).ToString(), HasSubstr("is a placeholder"));
}

TEST(ComputeRootTest, UndoesInliningUnlessThatStrandsAnotherStage) {
  State state(testing::ElementwiseChain(16, 16));
  ASSERT_TRUE(state.Apply(ComputeInlineStep{2}).ok());
  ASSERT_TRUE(state.Apply(ComputeAtStep{1, 3, 0}).ok());  // B in D, read through inlined C
  EXPECT_THAT(state.Apply(ComputeRootStep{2}).ToString(),
              HasSubstr("compute_root (step 2): stage 'B' (1) is read by 'C' (2), which is not "
                        "computed inside loop 0 ('i') of 'D' (3)"));
  ASSERT_TRUE(state.Apply(ComputeRootStep{1}).ok());
  EXPECT_TRUE(state.Apply(ComputeRootStep{2}).ok());
}

TEST(ComputeInlineTest, MarksTheStageInlined) {
  State state(testing::Conv2dPad());
  ASSERT_TRUE(state.Apply(ComputeInlineStep{1}).ok());
  EXPECT_TRUE(std::holds_alternative<ComputeInlined>(state.stage(1).location));
  EXPECT_EQ(state.stage(1).op->name, "pad");
}

TEST(ComputeInlineTest, RejectsReductionsOutputsAndStagesHoldingOthers) {
  State state(testing::MatmulRelu(64, 64, 64));
  EXPECT_THAT(state.Apply(ComputeInlineStep{2}).ToString(),
              HasSubstr("compute_inline (step 0): stage 'C' (2) is a reduction; only stages "
                        "without reduction can be inlined"));
  EXPECT_THAT(state.Apply(ComputeInlineStep{3}).ToString(),
              HasSubstr("stage 'D' (3) is an output of the program; outputs must be computed, "
                        "not inlined"));
  EXPECT_THAT(state.Apply(ComputeInlineStep{0}).ToString(), HasSubstr("is a placeholder"));
  State chain(testing::ElementwiseChain(16, 16));
  ASSERT_TRUE(chain.Apply(ComputeAtStep{1, 2, 0}).ok());
  EXPECT_THAT(chain.Apply(ComputeInlineStep{2}).ToString(),
              HasSubstr("stage 'B' (1) is computed inside a loop of 'C' (2), which would "
                        "disappear; compute_root it first"));
}

TEST(ComputeInlineTest, InlinedStagesHaveNoLoopsToPlaceOthersIn) {
  State state(testing::ElementwiseChain(16, 16));
  ASSERT_TRUE(state.Apply(ComputeInlineStep{2}).ok());
  EXPECT_THAT(state.Apply(ComputeAtStep{1, 2, 0}).ToString(),
              HasSubstr("stage 'B' (1) is placed in 'C' (2), which is inlined and has no loops"));
}

}  // namespace
}  // namespace tuneforge::schedule
