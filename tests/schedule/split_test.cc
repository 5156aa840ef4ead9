#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/schedule/state.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IterSummary;

TEST(SplitTest, InnerToOuterLengthsAreInnerFactors) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {4, 2}, true}).ok());
  const Stage& c = state.stage(2);
  EXPECT_THAT(IterSummary(c), ElementsAre("i.0:8 spatial", "i.1:4 spatial", "i.2:2 spatial",
                                          "j:32 spatial", "k:16 reduce"));
  ASSERT_EQ(c.relations.size(), 1u);
  const auto& rel = std::get<SplitRelation>(c.relations[0]);
  EXPECT_EQ(rel.parent, 0);
  EXPECT_THAT(rel.children, ElementsAre(3, 4, 5));
  EXPECT_TRUE(rel.inner_to_outer);
  EXPECT_EQ(c.nodes.size(), 6u);  // the root node stays, no longer a loop
  EXPECT_EQ(c.IterIndexOfNode(0), -1);
}

TEST(SplitTest, OuterToInnerLengthsAreOuterExtents) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(SplitStep{2, 1, {4, 2}, false}).ok());
  EXPECT_THAT(IterSummary(state.stage(2)),
              ElementsAre("i:64 spatial", "j.0:4 spatial", "j.1:2 spatial", "j.2:4 spatial",
                          "k:16 reduce"));
  EXPECT_FALSE(std::get<SplitRelation>(state.stage(2).relations[0]).inner_to_outer);
}

TEST(SplitTest, NonDivisibleLengthsRoundTheRemainderUp) {
  State state(testing::Matmul(10, 7, 5));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {4}, true}).ok());   // 10 = ceil(10/4)=3 x 4
  ASSERT_TRUE(state.Apply(SplitStep{2, 2, {3}, false}).ok());  // 7 = 3 x ceil(7/3)=3
  ASSERT_TRUE(state.Apply(SplitStep{2, 4, {8}, true}).ok());   // 5 = 1 x min(8, 5): clamped
  EXPECT_THAT(IterSummary(state.stage(2)),
              ElementsAre("i.0:3 spatial", "i.1:4 spatial", "j.0:3 spatial", "j.1:3 spatial",
                          "k.0:1 reduce", "k.1:5 reduce"));
}

TEST(SplitTest, SplittingAChildNamesItsChildrenAfterIt) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {8}, true}).ok());
  ASSERT_TRUE(state.Apply(SplitStep{2, 1, {2}, true}).ok());
  EXPECT_THAT(IterSummary(state.stage(2)),
              ElementsAre("i.0:8 spatial", "i.1.0:4 spatial", "i.1.1:2 spatial", "j:32 spatial",
                          "k:16 reduce"));
  EXPECT_EQ(state.stage(2).relations.size(), 2u);
}

TEST(SplitTest, ReductionIteratorsSplitIntoReductionIterators) {
  State state(testing::Matmul(8, 8, 64));
  ASSERT_TRUE(state.Apply(SplitStep{2, 2, {16}, true}).ok());
  EXPECT_THAT(IterSummary(state.stage(2)),
              ElementsAre("i:8 spatial", "j:8 spatial", "k.0:4 reduce", "k.1:16 reduce"));
}

TEST(SplitTest, StagesAttachedToTheSplitLoopMoveToItsInnermostPart) {
  State state(testing::MatmulRelu(64, 64, 64));
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 0}).ok());  // C inside D's loop i
  ASSERT_TRUE(state.Apply(SplitStep{3, 0, {8, 2}, true}).ok());
  const auto& at = std::get<ComputeAtIter>(state.stage(2).location);
  EXPECT_EQ(at.target_stage, 3);
  EXPECT_EQ(state.stage(3).nodes[at.target_node].name, "i.2");
  EXPECT_EQ(state.stage(3).IterIndexOfNode(at.target_node), 2);
  // Splitting another loop of D leaves the placement alone.
  ASSERT_TRUE(state.Apply(SplitStep{3, 3, {4}, true}).ok());
  EXPECT_EQ(state.stage(3).nodes[std::get<ComputeAtIter>(state.stage(2).location).target_node].name,
            "i.2");
}

struct SplitErrorCase {
  SplitStep step;
  std::string message;
};

void PrintTo(const SplitErrorCase& c, std::ostream* os) { *os << StepToString(c.step); }

class SplitErrorTest : public ::testing::TestWithParam<SplitErrorCase> {};

TEST_P(SplitErrorTest, IsRejectedWithAMessage) {
  State state(testing::Matmul(64, 32, 16));
  absl::Status s = state.Apply(GetParam().step);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.ToString(), HasSubstr(GetParam().message));
  EXPECT_TRUE(state.steps().empty());
}

// Built in a function and passed with ValuesIn: GCC 12 reports the vectors
// of brace-initialised cases inside ::testing::Values as maybe-uninitialised.
std::vector<SplitErrorCase> SplitErrorCases() {
  std::vector<SplitErrorCase> cases;
  auto add = [&](int stage, int iter, std::vector<int64_t> lengths, std::string message) {
    cases.push_back({SplitStep{stage, iter, std::move(lengths), true}, std::move(message)});
  };
  add(2, 0, {}, "split (step 0): no lengths given");
  add(2, 0, {4, 0}, "length 0 at position 1 of [4, 0] must be >= 1");
  add(2, 0, {-2}, "length -2 at position 0 of [-2] must be >= 1");
  add(2, 3, {4}, "iterator 3 out of range; stage 'C' (2) has 3 iterators (0..2)");
  add(2, -1, {4}, "iterator -1 out of range");
  add(5, 0, {4}, "stage 5 out of range; the state has 3 stages (0..2)");
  add(1, 0, {4}, "stage 'B' (1) is a placeholder");
  add(2, 0, {int64_t{1} << 40, int64_t{1} << 40}, "overflows 64 bits");
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Split, SplitErrorTest, ::testing::ValuesIn(SplitErrorCases()));

TEST(SplitTest, SplittingAnAnnotatedIteratorIsRejected) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(AnnotationStep{2, 1, IterAnnotation::kVectorize}).ok());
  EXPECT_THAT(state.Apply(SplitStep{2, 1, {4}, true}).ToString(),
              HasSubstr("split (step 1): iterator 1 ('j') of stage 'C' (2) is annotated "
                        "'vectorize'; split it before annotating"));
}

}  // namespace
}  // namespace tuneforge::schedule
