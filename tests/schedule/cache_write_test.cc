#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/schedule/state.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IterSummary;
using testing::OpLine;

TEST(CacheWriteTest, TheNewStageComputesTheBodyAndTheOriginalCopiesIt) {
  State state(testing::MatmulRelu(64, 32, 16));
  ASSERT_TRUE(state.Apply(CacheWriteStep{2, "local"}).ok());
  ASSERT_EQ(state.num_stages(), 5);
  for (int s = 0; s < state.num_stages(); ++s) EXPECT_EQ(state.stage(s).op, state.dag()->op(s));
  EXPECT_EQ(OpLine(*state.dag(), "C.local"),
            "C.local: float32[64, 32] = compute(i, j) sum((A[i, k] * B[k, j]), axis=[k:16])");
  EXPECT_EQ(OpLine(*state.dag(), "C"), "C: float32[64, 32] = compute(i, j) C.local[i, j]");
  EXPECT_EQ(OpLine(*state.dag(), "D"), "D: float32[64, 32] = compute(i, j) max(C[i, j], 0.0)");
  const Stage& local = state.stage(2);
  EXPECT_EQ(local.op->name, "C.local");
  EXPECT_EQ(local.scope, "local");
  EXPECT_THAT(IterSummary(local), ElementsAre("i:64 spatial", "j:32 spatial", "k:16 reduce"));
  const Stage& copy = state.stage(3);
  EXPECT_EQ(copy.op->name, "C");
  EXPECT_EQ(copy.scope, "global");
  EXPECT_THAT(IterSummary(copy), ElementsAre("i:64 spatial", "j:32 spatial"));
  EXPECT_TRUE(state.dag()->analysis(2).needs_multi_level_tiling);
  EXPECT_TRUE(state.dag()->analysis(3).is_elementwise);
  // Fresh variables for the new op; the original keeps its own.
  EXPECT_NE(local.op->axes[0].var, copy.op->axes[0].var);
  EXPECT_EQ(copy.op->axes[0].var, state.original_dag()->op(2)->axes[0].var);
}

TEST(CacheWriteTest, TheCacheCanThenBePlacedInTheOriginal) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(CacheWriteStep{2, "local"}).ok());
  ASSERT_TRUE(state.Apply(SplitStep{3, 0, {8}, true}).ok());
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 0}).ok());
  const auto& at = std::get<ComputeAtIter>(state.stage(2).location);
  EXPECT_EQ(at.target_stage, 3);
  EXPECT_EQ(state.stage(3).nodes[at.target_node].name, "i.0");
}

TEST(CacheWriteTest, ShiftsIndicesAndKeepsTheOriginalsPlacement) {
  State state(testing::MatmulRelu(64, 64, 64));
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 0}).ok());  // C at D (3)
  ASSERT_TRUE(state.Apply(CacheWriteStep{2, "local"}).ok());
  EXPECT_TRUE(std::holds_alternative<ComputeRoot>(state.stage(2).location));  // C.local
  const auto& at = std::get<ComputeAtIter>(state.stage(3).location);          // C
  EXPECT_EQ(at.target_stage, 4);
  EXPECT_EQ(state.stage(4).nodes[at.target_node].name, "i");
  // Steps after the cache_write see the shifted indices.
  ASSERT_TRUE(state.Apply(AnnotationStep{4, 1, IterAnnotation::kVectorize}).ok());
  EXPECT_EQ(state.stage(4).op->name, "D");
}

TEST(CacheWriteTest, ElementwiseStagesCanBeCachedToo) {
  State state(testing::ElementwiseChain(8, 8));
  ASSERT_TRUE(state.Apply(CacheWriteStep{3, "local"}).ok());
  EXPECT_EQ(OpLine(*state.dag(), "D.local"),
            "D.local: float32[8, 8] = compute(i, j) (C[i, j] - 3.0)");
  EXPECT_EQ(OpLine(*state.dag(), "D"), "D: float32[8, 8] = compute(i, j) D.local[i, j]");
  EXPECT_TRUE(state.dag()->analysis(4).is_output);
  EXPECT_FALSE(state.dag()->analysis(3).is_output);
}

TEST(CacheWriteTest, RejectsTransformedStagesAndStagesHoldingOthers) {
  State state(testing::MatmulRelu(64, 64, 64));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {8}, true}).ok());
  EXPECT_THAT(state.Apply(CacheWriteStep{2, "local"}).ToString(),
              HasSubstr("cache_write (step 1): the loops of stage 'C' (2) were already split or "
                        "fused; cache_write replaces them, so apply it before transforming the "
                        "stage"));
  State reordered(testing::Matmul(8, 8, 8));
  ASSERT_TRUE(reordered.Apply(ReorderStep{2, {1, 0, 2}}).ok());
  EXPECT_THAT(reordered.Apply(CacheWriteStep{2, "local"}).ToString(),
              HasSubstr("were already reordered"));
  State annotated(testing::Matmul(8, 8, 8));
  ASSERT_TRUE(annotated.Apply(AnnotationStep{2, 0, IterAnnotation::kParallel}).ok());
  EXPECT_THAT(annotated.Apply(CacheWriteStep{2, "local"}).ToString(),
              HasSubstr("were already annotated"));
  State holding(testing::MatmulRelu(64, 64, 64));
  ASSERT_TRUE(holding.Apply(ComputeAtStep{2, 3, 0}).ok());
  EXPECT_THAT(holding.Apply(CacheWriteStep{3, "local"}).ToString(),
              HasSubstr("stage 'C' (2) is computed inside a loop of 'D' (3), which cache_write "
                        "replaces; apply cache_write before compute_at"));
  EXPECT_THAT(holding.Apply(CacheWriteStep{0, "local"}).ToString(), HasSubstr("is a placeholder"));
  EXPECT_THAT(holding.Apply(CacheWriteStep{3, ""}).ToString(), HasSubstr("unknown scope ''"));
  State inlined(testing::ElementwiseChain(8, 8));
  ASSERT_TRUE(inlined.Apply(ComputeInlineStep{1}).ok());
  EXPECT_THAT(inlined.Apply(CacheWriteStep{1, "local"}).ToString(),
              HasSubstr("stage 'B' (1) is inlined and writes no buffer"));
}

}  // namespace
}  // namespace tuneforge::schedule
