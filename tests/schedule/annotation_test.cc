#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/schedule/state.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IterSummary;

TEST(AnnotationTest, EveryAnnotationCanBeSetOnASpatialLoop) {
  for (int a = 1; a <= static_cast<int>(IterAnnotation::kThreadZ); ++a) {
    auto annotation = static_cast<IterAnnotation>(a);
    State state(testing::Matmul(8, 8, 8));
    ASSERT_TRUE(state.Apply(AnnotationStep{2, 1, annotation}).ok()) << AnnotationName(annotation);
    EXPECT_EQ(state.stage(2).iters[1].annotation, annotation);
    EXPECT_EQ(state.stage(2).iters[0].annotation, IterAnnotation::kNone);
  }
}

TEST(AnnotationTest, AnnotationNamesParseBack) {
  for (int a = 0; a <= static_cast<int>(IterAnnotation::kThreadZ); ++a) {
    auto annotation = static_cast<IterAnnotation>(a);
    EXPECT_EQ(ParseAnnotation(AnnotationName(annotation)), annotation);
  }
  EXPECT_EQ(ParseAnnotation("threadIdx.x"), IterAnnotation::kThreadX);
  EXPECT_FALSE(ParseAnnotation("paralel").has_value());
}

TEST(AnnotationTest, RepeatingTheSameAnnotationIsANoOp) {
  State state(testing::Matmul(8, 8, 8));
  ASSERT_TRUE(state.Apply(AnnotationStep{2, 0, IterAnnotation::kParallel}).ok());
  ASSERT_TRUE(state.Apply(AnnotationStep{2, 0, IterAnnotation::kParallel}).ok());
  EXPECT_THAT(IterSummary(state.stage(2)),
              ElementsAre("i:8 spatial parallel", "j:8 spatial", "k:8 reduce"));
}

TEST(AnnotationTest, ADifferentAnnotationOnAnAnnotatedLoopIsRejected) {
  State state(testing::Matmul(8, 8, 8));
  ASSERT_TRUE(state.Apply(AnnotationStep{2, 0, IterAnnotation::kParallel}).ok());
  EXPECT_THAT(state.Apply(AnnotationStep{2, 0, IterAnnotation::kUnroll}).ToString(),
              HasSubstr("annotation (step 1): iterator 0 ('i') of stage 'C' (2) is already "
                        "annotated 'parallel'; it cannot also be 'unroll'"));
}

TEST(AnnotationTest, ReductionLoopsMayBeVectorizedOrUnrolledButNotRunInParallel) {
  State state(testing::Matmul(8, 8, 8));
  EXPECT_TRUE(state.Apply(AnnotationStep{2, 2, IterAnnotation::kUnroll}).ok());
  State vec(testing::Matmul(8, 8, 8));
  EXPECT_TRUE(vec.Apply(AnnotationStep{2, 2, IterAnnotation::kVectorize}).ok());
  State par(testing::Matmul(8, 8, 8));
  EXPECT_THAT(par.Apply(AnnotationStep{2, 2, IterAnnotation::kParallel}).ToString(),
              HasSubstr("iterator 2 ('k') of stage 'C' (2) is a reduction loop; 'parallel' "
                        "would make its iterations race"));
  EXPECT_THAT(par.Apply(AnnotationStep{2, 2, IterAnnotation::kBlockX}).ToString(),
              HasSubstr("'blockIdx.x' would make its iterations race"));
}

TEST(AnnotationTest, AGpuIndexBindsOnlyOneLoopOfAStage) {
  State state(testing::Matmul(8, 8, 8));
  ASSERT_TRUE(state.Apply(AnnotationStep{2, 0, IterAnnotation::kThreadX}).ok());
  EXPECT_THAT(state.Apply(AnnotationStep{2, 1, IterAnnotation::kThreadX}).ToString(),
              HasSubstr("iterator 0 ('i') of stage 'C' (2) is already bound to threadIdx.x"));
  EXPECT_TRUE(state.Apply(AnnotationStep{2, 1, IterAnnotation::kThreadY}).ok());
  // Virtual threads may nest.
  State vt(testing::Matmul(8, 8, 8));
  ASSERT_TRUE(vt.Apply(AnnotationStep{2, 0, IterAnnotation::kVThread}).ok());
  EXPECT_TRUE(vt.Apply(AnnotationStep{2, 1, IterAnnotation::kVThread}).ok());
}

TEST(PragmaTest, StoresTheAutoUnrollLimitOnTheStage) {
  State state(testing::Matmul(8, 8, 8));
  ASSERT_TRUE(state.Apply(PragmaStep{2, 0, 64}).ok());
  EXPECT_EQ(state.stage(2).auto_unroll_max_step, 64);
  ASSERT_TRUE(state.Apply(PragmaStep{2, 0, 0}).ok());
  EXPECT_EQ(state.stage(2).auto_unroll_max_step, 0);
  EXPECT_THAT(state.Apply(PragmaStep{2, 0, -1}).ToString(),
              HasSubstr("pragma (step 2): auto_unroll_max_step -1 must be >= 0"));
  EXPECT_THAT(state.Apply(PragmaStep{2, 5, 16}).ToString(), HasSubstr("iterator 5 out of range"));
}

TEST(StorageAlignTest, StoresAlignmentPerOutputDimension) {
  State state(testing::Matmul(64, 32, 16));
  ASSERT_TRUE(state.Apply(StorageAlignStep{2, 0, 32, 8}).ok());
  ASSERT_EQ(state.stage(2).storage_align.size(), 1u);
  EXPECT_EQ(state.stage(2).storage_align[0].axis, 0);
  EXPECT_EQ(state.stage(2).storage_align[0].factor, 32);
  EXPECT_EQ(state.stage(2).storage_align[0].offset, 8);
  // After a reorder the iterator index differs from the axis; the axis is stored.
  ASSERT_TRUE(state.Apply(ReorderStep{2, {1, 0, 2}}).ok());
  ASSERT_TRUE(state.Apply(StorageAlignStep{2, 1, 16, 1}).ok());  // iterator 1 is axis i again
  ASSERT_EQ(state.stage(2).storage_align.size(), 1u);
  EXPECT_EQ(state.stage(2).storage_align[0].factor, 16);
  ASSERT_TRUE(state.Apply(StorageAlignStep{2, 0, 4, 0}).ok());  // axis j
  ASSERT_EQ(state.stage(2).storage_align.size(), 2u);
  EXPECT_EQ(state.stage(2).storage_align[1].axis, 1);
}

TEST(StorageAlignTest, RejectsTransformedOrReductionLoopsAndBadFactors) {
  State state(testing::Matmul(64, 32, 16));
  EXPECT_THAT(state.Apply(StorageAlignStep{2, 2, 32, 0}).ToString(),
              HasSubstr("storage_align (step 0): iterator 2 ('k') of stage 'C' (2) is not an "
                        "untransformed spatial axis"));
  EXPECT_THAT(state.Apply(StorageAlignStep{2, 0, 0, 0}).ToString(),
              HasSubstr("factor 0 must be >= 1"));
  EXPECT_THAT(state.Apply(StorageAlignStep{2, 0, 8, 8}).ToString(),
              HasSubstr("offset 8 must be in 0..7"));
  EXPECT_THAT(state.Apply(StorageAlignStep{2, 0, 8, -1}).ToString(),
              HasSubstr("offset -1 must be in 0..7"));
  ASSERT_TRUE(state.Apply(SplitStep{2, 0, {8}, true}).ok());
  EXPECT_THAT(
      state.Apply(StorageAlignStep{2, 1, 32, 0}).ToString(),
      HasSubstr("iterator 1 ('i.1') of stage 'C' (2) is not an untransformed spatial axis"));
}

}  // namespace
}  // namespace tuneforge::schedule
