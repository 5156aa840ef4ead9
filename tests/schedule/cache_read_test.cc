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

std::vector<std::string> StageNames(const State& state) {
  std::vector<std::string> names;
  for (const Stage& s : state.stages()) names.push_back(s.op->name);
  return names;
}

TEST(CacheReadTest, InsertsACopyStageRightAfterTheSource) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(CacheReadStep{0, "shared", {2}}).ok());
  EXPECT_THAT(StageNames(state), ElementsAre("A", "A.shared", "B", "C"));
  for (int s = 0; s < state.num_stages(); ++s) EXPECT_EQ(state.stage(s).op, state.dag()->op(s));
  const Stage& cache = state.stage(1);
  EXPECT_EQ(cache.scope, "shared");
  EXPECT_TRUE(std::holds_alternative<ComputeRoot>(cache.location));
  EXPECT_THAT(IterSummary(cache), ElementsAre("ax0:64 spatial", "ax1:16 spatial"));
  EXPECT_EQ(OpLine(*state.dag(), "A.shared"),
            "A.shared: float32[64, 16] = compute(ax0, ax1) A[ax0, ax1]");
  EXPECT_EQ(OpLine(*state.dag(), "C"),
            "C: float32[64, 32] = compute(i, j) sum((A.shared[i, k] * B[k, j]), axis=[k:16])");
  // The original DAG is untouched.
  EXPECT_EQ(state.original_dag()->num_ops(), 3);
  EXPECT_EQ(OpLine(*state.original_dag(), "C"),
            "C: float32[64, 32] = compute(i, j) sum((A[i, k] * B[k, j]), axis=[k:16])");
}

TEST(CacheReadTest, KeepsTheReadersLoopsAndAxisVariables) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {8}, true}).ok());
  const te::Var i = state.stage(2).op->axes[0].var;
  ASSERT_TRUE(state.Apply(CacheReadStep{1, "local", {2}}).ok());
  const Stage& c = state.stage(3);
  EXPECT_EQ(c.op->axes[0].var, i);
  EXPECT_THAT(IterSummary(c),
              ElementsAre("i.0:8 spatial", "i.1:8 spatial", "j:32 spatial", "k:16 reduce"));
}

TEST(CacheReadTest, OnlyTheListedReadersReadTheCache) {
  State state(testing::TwoConsumers(8, 8));  // X -> B, C -> D
  ASSERT_TRUE(state.Apply(CacheReadStep{0, "local", {2}}).ok());
  EXPECT_THAT(StageNames(state), ElementsAre("X", "X.local", "B", "C", "D"));
  EXPECT_EQ(OpLine(*state.dag(), "B"), "B: float32[8, 8] = compute(i, j) (X[i, j] + 1.0)");
  EXPECT_EQ(OpLine(*state.dag(), "C"), "C: float32[8, 8] = compute(i, j) (X.local[i, j] * 2.0)");
  EXPECT_THAT(state.dag()->analysis(0).consumers, ElementsAre(1, 2));
  EXPECT_THAT(state.dag()->analysis(1).consumers, ElementsAre(3));
  // D was rebuilt to read the new C.
  EXPECT_EQ(OpLine(*state.dag(), "D"), "D: float32[8, 8] = compute(i, j) (B[i, j] + C[i, j])");
  EXPECT_THAT(state.dag()->analysis(3).consumers, ElementsAre(4));
}

TEST(CacheReadTest, ShiftsStoredStageIndices) {
  State state(testing::MatmulRelu(64, 64, 64));
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 0}).ok());  // C at D (3)
  ASSERT_TRUE(state.Apply(CacheReadStep{1, "shared", {2}}).ok());
  EXPECT_THAT(StageNames(state), ElementsAre("A", "B", "B.shared", "C", "D"));
  const auto& at = std::get<ComputeAtIter>(state.stage(3).location);
  EXPECT_EQ(at.target_stage, 4);
  EXPECT_EQ(state.stage(4).nodes[at.target_node].name, "i");
  // The cache of a cache, with the same scope, gets a distinct name.
  ASSERT_TRUE(state.Apply(CacheReadStep{2, "shared", {3}}).ok());
  EXPECT_THAT(StageNames(state), ElementsAre("A", "B", "B.shared", "B.shared.shared", "C", "D"));
  ASSERT_TRUE(state.Apply(CacheReadStep{0, "local", {4}}).ok());
  ASSERT_TRUE(state.Apply(CacheReadStep{2, "local", {3}}).ok());
  EXPECT_THAT(StageNames(state),
              ElementsAre("A", "A.local", "B", "B.local", "B.shared", "B.shared.shared", "C", "D"));
  EXPECT_EQ(std::get<ComputeAtIter>(state.stage(6).location).target_stage, 7);
}

TEST(CacheReadTest, TwoCachesOfOneTensorWithOneScopeGetDistinctNames) {
  State state(testing::TwoConsumers(8, 8));
  ASSERT_TRUE(state.Apply(CacheReadStep{0, "local", {1}}).ok());  // X.local for B
  ASSERT_TRUE(state.Apply(CacheReadStep{0, "local", {3}}).ok());  // another for C
  EXPECT_THAT(StageNames(state), ElementsAre("X", "X.local.1", "X.local", "B", "C", "D"));
  EXPECT_EQ(OpLine(*state.dag(), "C"), "C: float32[8, 8] = compute(i, j) (X.local.1[i, j] * 2.0)");
}

TEST(CacheReadTest, RejectsBadReadersScopesAndPlacedSources) {
  State state(testing::TwoConsumers(8, 8));
  EXPECT_THAT(state.Apply(CacheReadStep{0, "local", {}}).ToString(),
              HasSubstr("cache_read (step 0): readers is empty; list the consumers of 'X' (0)"));
  EXPECT_THAT(state.Apply(CacheReadStep{0, "local", {3}}).ToString(),
              HasSubstr("reader 'D' (3) does not read 'X' (0); readers must be its consumers"));
  EXPECT_THAT(state.Apply(CacheReadStep{0, "local", {1, 1}}).ToString(),
              HasSubstr("reader 1 is listed twice"));
  EXPECT_THAT(state.Apply(CacheReadStep{0, "local", {9}}).ToString(),
              HasSubstr("stage 9 out of range"));
  EXPECT_THAT(state.Apply(CacheReadStep{0, "texture", {1}}).ToString(),
              HasSubstr("unknown scope 'texture'; use \"global\", \"shared\" or \"local\""));
  ASSERT_TRUE(state.Apply(ComputeAtStep{1, 3, 0}).ok());
  EXPECT_THAT(state.Apply(CacheReadStep{1, "local", {3}}).ToString(),
              HasSubstr("stage 'B' (1) is computed inside another stage's loop"));
  ASSERT_TRUE(state.Apply(ComputeInlineStep{2}).ok());
  EXPECT_THAT(state.Apply(CacheReadStep{2, "local", {3}}).ToString(),
              HasSubstr("stage 'C' (2) is inlined and has no buffer to cache"));
}

}  // namespace
}  // namespace tuneforge::schedule
