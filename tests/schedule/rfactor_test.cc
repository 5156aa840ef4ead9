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

// RowReduce with k split by `factor`, then rfactor on `iter` at `factor_iter`.
State SplitAndRfactor(int64_t n, te::Combiner combiner, int64_t factor, int iter, int factor_iter) {
  State state(testing::RowReduce(8, n, combiner));
  EXPECT_TRUE(state.Apply(SplitStep{1, 1, {factor}, true}).ok());
  absl::Status s = state.Apply(RfactorStep{1, iter, factor_iter});
  EXPECT_TRUE(s.ok()) << s;
  return state;
}

TEST(RfactorTest, InnerPartOfADivisibleSplitAsTheFirstAxis) {
  State state = SplitAndRfactor(16, te::Combiner::kSum, 4, 2, 0);
  ASSERT_EQ(state.num_stages(), 3);
  EXPECT_EQ(OpLine(*state.dag(), "R.rf"),
            "R.rf: float32[4, 8] = compute(k.1, i) sum(X[i, ((k.0 * 4) + k.1)], axis=[k.0:4])");
  EXPECT_EQ(OpLine(*state.dag(), "R"),
            "R: float32[8] = compute(i) sum(R.rf[k.1, i], axis=[k.1:4])");
  EXPECT_THAT(IterSummary(state.stage(1)),
              ElementsAre("k.1:4 spatial", "i:8 spatial", "k.0:4 reduce"));
  EXPECT_THAT(IterSummary(state.stage(2)), ElementsAre("i:8 spatial", "k.1:4 reduce"));
  for (int s = 0; s < state.num_stages(); ++s) EXPECT_EQ(state.stage(s).op, state.dag()->op(s));
}

TEST(RfactorTest, FactorAxisAtTheLastPosition) {
  State state = SplitAndRfactor(16, te::Combiner::kSum, 4, 2, 1);
  EXPECT_EQ(OpLine(*state.dag(), "R.rf"),
            "R.rf: float32[8, 4] = compute(i, k.1) sum(X[i, ((k.0 * 4) + k.1)], axis=[k.0:4])");
  EXPECT_EQ(OpLine(*state.dag(), "R"),
            "R: float32[8] = compute(i) sum(R.rf[i, k.1], axis=[k.1:4])");
}

TEST(RfactorTest, OuterPartOfASplit) {
  State state = SplitAndRfactor(16, te::Combiner::kSum, 4, 1, 1);
  EXPECT_EQ(OpLine(*state.dag(), "R.rf"),
            "R.rf: float32[8, 4] = compute(i, k.0) sum(X[i, ((k.0 * 4) + k.1)], axis=[k.1:4])");
}

TEST(RfactorTest, NonDivisibleSplitIsGuardedByTheReductionCondition) {
  State state = SplitAndRfactor(10, te::Combiner::kSum, 4, 2, 1);
  EXPECT_EQ(OpLine(*state.dag(), "R.rf"),
            "R.rf: float32[8, 4] = compute(i, k.1) sum(X[i, ((k.0 * 4) + k.1)], axis=[k.0:3], "
            "where=(((k.0 * 4) + k.1) < 10))");
  EXPECT_EQ(OpLine(*state.dag(), "R"),
            "R: float32[8] = compute(i) sum(R.rf[i, k.1], axis=[k.1:4])");
}

TEST(RfactorTest, MaxAndMinKeepTheirCombiner) {
  State max = SplitAndRfactor(10, te::Combiner::kMax, 4, 2, 0);
  EXPECT_EQ(OpLine(*max.dag(), "R.rf"),
            "R.rf: float32[4, 8] = compute(k.1, i) max(X[i, ((k.0 * 4) + k.1)], axis=[k.0:3], "
            "where=(((k.0 * 4) + k.1) < 10))");
  EXPECT_EQ(OpLine(*max.dag(), "R"), "R: float32[8] = compute(i) max(R.rf[k.1, i], axis=[k.1:4])");
  State min = SplitAndRfactor(16, te::Combiner::kMin, 8, 1, 0);
  EXPECT_EQ(OpLine(*min.dag(), "R.rf"),
            "R.rf: float32[2, 8] = compute(k.0, i) min(X[i, ((k.0 * 8) + k.1)], axis=[k.1:8])");
  EXPECT_EQ(OpLine(*min.dag(), "R"), "R: float32[8] = compute(i) min(R.rf[k.0, i], axis=[k.0:2])");
}

TEST(RfactorTest, AnUnsplitReductionAxisLeavesNothingToReduceInThePartials) {
  State state(testing::RowReduce(8, 16, te::Combiner::kSum));
  ASSERT_TRUE(state.Apply(RfactorStep{1, 1, 0}).ok());
  EXPECT_EQ(OpLine(*state.dag(), "R.rf"), "R.rf: float32[16, 8] = compute(k, i) X[i, k]");
  EXPECT_EQ(OpLine(*state.dag(), "R"), "R: float32[8] = compute(i) sum(R.rf[k, i], axis=[k:16])");
  EXPECT_FALSE(state.dag()->analysis(1).has_reduction);
}

TEST(RfactorTest, AFusedAndSplitGuardedLoopWithNothingLeftUsesASelect) {
  State state(testing::RowReduce(8, 10, te::Combiner::kSum));
  ASSERT_TRUE(state.Apply(SplitStep{1, 1, {4}, true}).ok());
  ASSERT_TRUE(state.Apply(FuseStep{1, {1, 2}}).ok());
  ASSERT_TRUE(state.Apply(RfactorStep{1, 1, 1}).ok());
  EXPECT_EQ(OpLine(*state.dag(), "R.rf"),
            "R.rf: float32[8, 12] = compute(i, k.0@k.1) select((((floordiv(k.0@k.1, 4) * 4) + "
            "floormod(k.0@k.1, 4)) < 10), X[i, ((floordiv(k.0@k.1, 4) * 4) + floormod(k.0@k.1, "
            "4))], 0.0)");
}

TEST(RfactorTest, FusedReductionAxesFactorTogether) {
  // Ansor's rfactor rule: fuse all reduction loops, split, factor one part.
  State state(testing::TwoAxisReduce(4, 6, 8));
  ASSERT_TRUE(state.Apply(FuseStep{1, {1, 2}}).ok());
  ASSERT_TRUE(state.Apply(SplitStep{1, 1, {16}, true}).ok());
  ASSERT_TRUE(state.Apply(RfactorStep{1, 2, 1}).ok());
  EXPECT_EQ(OpLine(*state.dag(), "S.rf"),
            "S.rf: float32[4, 16] = compute(i, r1@r2.1) sum(X[i, floordiv(((r1@r2.0 * 16) + "
            "r1@r2.1), 8), floormod(((r1@r2.0 * 16) + r1@r2.1), 8)], axis=[r1@r2.0:3])");
  EXPECT_EQ(OpLine(*state.dag(), "S"),
            "S: float32[4] = compute(i) sum(S.rf[i, r1@r2.1], axis=[r1@r2.1:16])");
}

TEST(RfactorTest, OtherReductionAxesStayReductionAxesOfThePartials) {
  State state(testing::TwoAxisReduce(4, 6, 8));
  ASSERT_TRUE(state.Apply(SplitStep{1, 2, {4}, true}).ok());  // r2 -> r2.0 (2), r2.1 (4)
  ASSERT_TRUE(state.Apply(RfactorStep{1, 3, 0}).ok());
  EXPECT_EQ(OpLine(*state.dag(), "S.rf"),
            "S.rf: float32[4, 4] = compute(r2.1, i) sum(X[i, r1, ((r2.0 * 4) + r2.1)], "
            "axis=[r1:6, r2.0:2])");
  EXPECT_THAT(IterSummary(state.stage(1)),
              ElementsAre("r2.1:4 spatial", "i:4 spatial", "r1:6 reduce", "r2.0:2 reduce"));
}

TEST(RfactorTest, ShiftsIndicesKeepsThePlacementAndNamesRepeatsApart) {
  State state(testing::MatmulRelu(16, 16, 16));
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 0}).ok());  // C at D (3)
  ASSERT_TRUE(state.Apply(SplitStep{2, 2, {4}, true}).ok());
  ASSERT_TRUE(state.Apply(RfactorStep{2, 3, 2}).ok());
  EXPECT_EQ(state.stage(2).op->name, "C.rf");
  EXPECT_TRUE(std::holds_alternative<ComputeRoot>(state.stage(2).location));
  EXPECT_EQ(std::get<ComputeAtIter>(state.stage(3).location).target_stage, 4);
  EXPECT_EQ(OpLine(*state.dag(), "C.rf"),
            "C.rf: float32[16, 16, 4] = compute(i, j, k.1) sum((A[i, ((k.0 * 4) + k.1)] * "
            "B[((k.0 * 4) + k.1), j]), axis=[k.0:4])");
  // The original reduces again (over k.1): it can be factored a second time.
  ASSERT_TRUE(state.Apply(RfactorStep{3, 2, 0}).ok());
  EXPECT_EQ(state.stage(3).op->name, "C.rf.1");
  EXPECT_EQ(OpLine(*state.dag(), "C"),
            "C: float32[16, 16] = compute(i, j) sum(C.rf.1[k.1, i, j], axis=[k.1:4])");
}

TEST(RfactorTest, RejectsSpatialLoopsNonReductionsBadPositionsAndHeldStages) {
  State state(testing::RowReduce(8, 16, te::Combiner::kSum));
  EXPECT_THAT(state.Apply(RfactorStep{1, 0, 0}).ToString(),
              HasSubstr("rfactor (step 0): iterator 0 ('i') of stage 'R' (1) is a spatial loop; "
                        "rfactor needs one of its reduction loops"));
  EXPECT_THAT(state.Apply(RfactorStep{1, 1, 2}).ToString(),
              HasSubstr("factor_iter 2 out of range; the new axis goes among the 1 spatial axes "
                        "of 'R' (1), at a position in 0..1"));
  EXPECT_THAT(state.Apply(RfactorStep{1, 2, 0}).ToString(), HasSubstr("iterator 2 out of range"));
  State chain(testing::ElementwiseChain(8, 8));
  EXPECT_THAT(chain.Apply(RfactorStep{1, 0, 0}).ToString(),
              HasSubstr("stage 'B' (1) has no reduction; rfactor factors a reduction loop"));
  State held(testing::Matmul(16, 16, 16));
  ASSERT_TRUE(held.Apply(CacheReadStep{0, "shared", {2}}).ok());
  ASSERT_TRUE(held.Apply(ComputeAtStep{1, 3, 2}).ok());  // A.shared at C's k
  EXPECT_THAT(held.Apply(RfactorStep{3, 2, 0}).ToString(),
              HasSubstr("stage 'A.shared' (1) is computed inside a loop of 'C' (3), which rfactor "
                        "replaces; apply rfactor before compute_at"));
}

}  // namespace
}  // namespace tuneforge::schedule
