// Allocation features: C.local from cache_write, computed inside C's
// (parallel) i loop. The matmul is M=4, N=8, K=16:
//   parallel (i, 0, 4)
//     allocate C.local[1 * 8]                    32 bytes, 4 times
//     for (j, 0, 8)
//       C.local[j] = 0                           row 0
//       for (k, 0, 16) C.local[j] += A * B       row 1
//     for (j, 0, 8) C[i*8 + j] = C.local[j]     row 2
#include <gtest/gtest.h>

#include "tests/search/features/feature_test_util.h"

namespace tuneforge::search::testing {
namespace {

using schedule::AnnotationStep;
using schedule::CacheWriteStep;
using schedule::ComputeAtStep;
using schedule::IterAnnotation;

class CacheWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    f_ = Features(state_);
    ASSERT_EQ(f_.num_stores, 3) << Program(state_);
  }

  // Stages after cache_write: 0 A, 1 B, 2 C.local, 3 C.
  schedule::State state_ = MakeState("matmul:M=4,N=8,K=16",
                                     {CacheWriteStep{2, "local"}, ComputeAtStep{2, 3, 0},
                                      AnnotationStep{3, 0, IterAnnotation::kParallel}});
  ProgramFeatures f_;
};

TEST_F(CacheWriteTest, StoresMapToTheirStages) {
  EXPECT_EQ(f_.store_stage, (std::vector<int>{2, 2, 3}));
}

TEST_F(CacheWriteTest, AllocationOfTheCacheStage) {
  for (int row : {0, 1}) {
    EXPECT_FLOAT_EQ(Value(f_, row, "alloc_size"), Log(8 * 4));
    EXPECT_FLOAT_EQ(Value(f_, row, "alloc_outer_prod"), Log(4));  // allocated once per i
    EXPECT_FLOAT_EQ(Value(f_, row, "alloc_prod"), Log(32 * 4));
  }
  // Executions per allocation: init 32 / 4, update 512 / 4.
  EXPECT_FLOAT_EQ(Value(f_, 0, "alloc_inner_prod"), Log(8));
  EXPECT_FLOAT_EQ(Value(f_, 1, "alloc_inner_prod"), Log(128));
  // C is an argument: no allocation features.
  EXPECT_EQ(Value(f_, 2, "alloc_size"), 0);
  EXPECT_EQ(Value(f_, 2, "alloc_inner_prod"), 0);
}

TEST_F(CacheWriteTest, ConsumerLoopAroundTheCacheStage) {
  // i is C's loop: it does not move C.local[j], and it lies outside
  // C.local's allocation, so for C.local it is an outer spatial loop.
  EXPECT_EQ(Value(f_, 1, "parallel_pos_outer_spatial"), 1);
  EXPECT_EQ(Value(f_, 2, "parallel_pos_outer_spatial"), 1);  // for C, i is the outer of i, j
  // C.local (read and written, 2 * 512 * 4 bytes) is reused across k.
  EXPECT_EQ(Value(f_, 1, "B0.acc_type_read_write"), 1);
  EXPECT_FLOAT_EQ(Value(f_, 1, "B0.reuse_ct"), Log(16));
  // The copy-out reads C.local and writes C, 32 * 4 bytes each; C.local's
  // footprint is 8 elements (32 bytes), C's 32: C first. C.local[j] does
  // not move with i: loop reuse 4 times, 8 iterations (j) apart.
  EXPECT_EQ(Value(f_, 2, "B0.acc_type_write"), 1);
  EXPECT_EQ(Value(f_, 2, "B1.acc_type_read"), 1);
  EXPECT_FLOAT_EQ(Value(f_, 2, "B1.unique_bytes"), Log(32));
  EXPECT_FLOAT_EQ(Value(f_, 2, "B1.reuse_ct"), Log(4));
  EXPECT_FLOAT_EQ(Value(f_, 2, "B1.reuse_dis_iter"), Log(8));
}

}  // namespace
}  // namespace tuneforge::search::testing
