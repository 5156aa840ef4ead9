#include "common/schedule/state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IterSummary;

TEST(StateTest, InitialStateHasOneStagePerOpWithAxesThenReductionAxes) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_EQ(state.num_stages(), 3);
  EXPECT_EQ(state.stage(0).op->name, "A");
  EXPECT_TRUE(state.stage(0).is_placeholder());
  EXPECT_TRUE(state.stage(0).nodes.empty());
  EXPECT_TRUE(state.stage(0).iters.empty());
  const Stage& c = state.stage(2);
  EXPECT_EQ(c.op->name, "C");
  EXPECT_THAT(IterSummary(c), ElementsAre("i:64 spatial", "j:32 spatial", "k:16 reduce"));
  EXPECT_TRUE(std::holds_alternative<ComputeRoot>(c.location));
  EXPECT_EQ(c.scope, "global");
  EXPECT_EQ(c.auto_unroll_max_step, 0);
  EXPECT_TRUE(c.relations.empty());
  EXPECT_EQ(c.num_spatial_axes(), 2);
  for (int s = 0; s < state.num_stages(); ++s) EXPECT_EQ(state.stage(s).op, state.dag()->op(s));
  EXPECT_EQ(state.dag(), state.original_dag());
}

TEST(StateTest, StageIndexFindsStagesByName) {
  State state(testing::Softmax(4, 8));
  EXPECT_EQ(state.StageIndex("X"), 0);
  EXPECT_EQ(state.StageIndex("maxelem"), 1);
  EXPECT_EQ(state.StageIndex("exp"), 2);
  EXPECT_EQ(state.StageIndex("expsum"), 3);
  EXPECT_EQ(state.StageIndex("out"), 4);
  EXPECT_EQ(state.StageIndex("nope"), -1);
}

TEST(StateTest, ToStringListsStagesLocationsAndIterators) {
  State state(testing::MatmulRelu(64, 64, 32));
  ASSERT_TRUE(state.Apply(SplitStep{3, 0, {8}, true}).ok());
  ASSERT_TRUE(state.Apply(AnnotationStep{3, 0, IterAnnotation::kParallel}).ok());
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 1}).ok());
  ASSERT_TRUE(state.Apply(PragmaStep{2, 0, 16}).ok());
  ASSERT_TRUE(state.Apply(CacheReadStep{0, "local", {2}}).ok());
  ASSERT_TRUE(state.Apply(StorageAlignStep{1, 0, 32, 1}).ok());
  EXPECT_EQ(state.ToString(),
            "stage 0 A: placeholder\n"
            "stage 1 A.local: root; scope local; storage_align axis 0 factor 32 offset 1\n"
            "  0 ax0: 64 spatial\n"
            "  1 ax1: 32 spatial\n"
            "stage 2 B: placeholder\n"
            "stage 3 C: at D (4) loop 1 i.1; auto_unroll_max_step 16\n"
            "  0 i: 1 spatial\n"
            "  1 j: 64 spatial\n"
            "  2 k: 32 reduce\n"
            "stage 4 D: root\n"
            "  0 i.0: 8 spatial parallel\n"
            "  1 i.1: 8 spatial\n"
            "  2 j: 64 spatial\n");
}

TEST(StateTest, FailedApplyLeavesTheStateUnchanged) {
  State state(testing::Matmul(16, 16, 16));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {4}, true}).ok());
  const std::string before = state.ToString();
  const uint64_t hash = state.Hash();
  absl::Status bad = state.Apply(SplitStep{2, 9, {4}, true});
  EXPECT_THAT(bad.ToString(), HasSubstr("split (step 1): iterator 9 out of range"));
  EXPECT_EQ(state.ToString(), before);
  EXPECT_EQ(state.Hash(), hash);
  EXPECT_EQ(state.steps().size(), 1u);
}

TEST(StateTest, StepFailingAfterItsEditLeavesTheStateUnchanged) {
  // B and C both inside D's loop; moving C out strands B, which is only
  // found after C's location was changed on the state being edited.
  State state(testing::ElementwiseChain(8, 8));
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 1}).ok());
  ASSERT_TRUE(state.Apply(ComputeAtStep{1, 3, 0}).ok());
  const std::string before = state.ToString();
  absl::Status late = state.Apply(ComputeRootStep{2});
  EXPECT_THAT(late.ToString(), HasSubstr("compute_root (step 2): stage 'B' (1) is read by 'C' (2), "
                                         "which is not computed inside loop 0 ('i') of 'D' (3)"));
  EXPECT_EQ(state.ToString(), before);
  EXPECT_EQ(state.steps().size(), 2u);
}

TEST(StateTest, ErrorsNameTheStepIndexAndKind) {
  State state(testing::Matmul(16, 16, 16));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {4}, true}).ok());
  ASSERT_TRUE(state.Apply(ReorderStep{2, {1, 0, 2, 3}}).ok());
  absl::Status s = state.Apply(FuseStep{7, {0, 1}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            "fuse (step 2): stage 7 out of range; the state has 3 stages (0..2)");
}

TEST(StateTest, ReplayReportsTheFirstBadStep) {
  absl::StatusOr<State> state =
      State::Replay(testing::Matmul(16, 16, 16),
                    {SplitStep{2, 0, {4}, true}, AnnotationStep{2, 0, IterAnnotation::kParallel},
                     SplitStep{2, 0, {2}, true}});
  ASSERT_FALSE(state.ok());
  EXPECT_THAT(state.status().ToString(),
              HasSubstr("split (step 2): iterator 0 ('i.0') of stage 'C' (2) is annotated "
                        "'parallel'; split it before annotating"));
}

TEST(StateTest, StepsOnPlaceholdersAreRejected) {
  State state(testing::Matmul(16, 16, 16));
  EXPECT_THAT(state.Apply(SplitStep{0, 0, {4}, true}).ToString(),
              HasSubstr("stage 'A' (0) is a placeholder (an input) and has no loops"));
  EXPECT_THAT(state.Apply(ComputeRootStep{1}).ToString(),
              HasSubstr("stage 'B' (1) is a placeholder"));
  EXPECT_THAT(state.Apply(ComputeInlineStep{-1}).ToString(), HasSubstr("stage -1 out of range"));
}

}  // namespace
}  // namespace tuneforge::schedule
