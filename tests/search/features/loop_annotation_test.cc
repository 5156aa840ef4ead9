// vectorize / unroll / parallel features: len, num, prod and the position
// of the innermost annotated loop among the store's loops.
#include <gtest/gtest.h>

#include "search/features/feature_bench.h"
#include "tests/search/features/feature_test_util.h"

namespace tuneforge::search::testing {
namespace {

using schedule::AnnotationStep;
using schedule::IterAnnotation;
using schedule::PragmaStep;
using schedule::ReorderStep;
using schedule::SplitStep;

// matmul M=4, N=32, K=16, j split by 8 and the 8 vectorized innermost:
//   for i (4), j.0 (4):
//     vectorized j.1.init (8): C[...] = 0                          row 0
//     for k (16): vectorized j.1 (8):
//       C[i*32 + j.0*8 + j.1] += A[i*16 + k] * B[k*32 + j.0*8 + j.1] row 1
TEST(LoopAnnotationTest, VectorizedInnerLoop) {
  schedule::State s = MakeState("matmul:M=4,N=32,K=16",
                                {SplitStep{2, 1, {8}, true}, ReorderStep{2, {0, 1, 3, 2}},
                                 AnnotationStep{2, 3, IterAnnotation::kVectorize}});
  ProgramFeatures f = Features(s);
  ASSERT_EQ(f.num_stores, 2) << Program(s);
  for (int row : {0, 1}) {
    EXPECT_FLOAT_EQ(Value(f, row, "vec_len"), Log(8));
    EXPECT_EQ(Value(f, row, "vec_num"), 1);
    EXPECT_FLOAT_EQ(Value(f, row, "vec_prod"), Log(8));
    // j.1 moves the output index and is the innermost loop that does.
    EXPECT_EQ(Value(f, row, "vec_pos_inner_spatial"), 1);
    EXPECT_EQ(Value(f, row, "vec_pos_none"), 0);
    EXPECT_EQ(Value(f, row, "unroll_pos_none"), 1);
  }
  EXPECT_FLOAT_EQ(Value(f, 1, "float_mad"), Log(4 * 32 * 16));
  EXPECT_EQ(Value(f, 1, "num_loops"), 4);
  // Buffers: C (4096 * 2 bytes), then B and A (8192 bytes each; B's
  // footprint is larger). B's stride loop is j.1 (step 1): 8 elements, one
  // line per sweep, 4 * 4 * 16 sweeps.
  EXPECT_FLOAT_EQ(Value(f, 1, "B1.stride"), Log(1));
  EXPECT_FLOAT_EQ(Value(f, 1, "B1.lines"), Log(256));
  // A[i*16 + k] does not move with j.1: reused 8 times, back to back,
  // 12 bytes (one element of each buffer) apart; its stride loop is k.
  EXPECT_FLOAT_EQ(Value(f, 1, "B2.reuse_ct"), Log(8));
  EXPECT_FLOAT_EQ(Value(f, 1, "B2.reuse_dis_iter"), Log(1));
  EXPECT_FLOAT_EQ(Value(f, 1, "B2.reuse_dis_bytes"), Log(12));
  EXPECT_FLOAT_EQ(Value(f, 1, "B2.lines"), Log(16));  // one line per k sweep, 4 * 4 sweeps
}

// The same split without the reorder: i, j.0 (vectorized), j.1, k. The
// spatial loops are i, j.0, j.1: j.0 is in the middle.
TEST(LoopAnnotationTest, VectorizedMiddleLoop) {
  schedule::State s = MakeState("matmul:M=4,N=32,K=16",
                                {SplitStep{2, 1, {8}, true}, AnnotationStep{2, 1, IterAnnotation::kVectorize}});
  ProgramFeatures f = Features(s);
  int update = RowOfStage(f, s, "C");
  ASSERT_GE(update, 0) << Program(s);
  EXPECT_FLOAT_EQ(Value(f, update, "vec_len"), Log(4));
  EXPECT_EQ(Value(f, update, "vec_pos_middle_spatial"), 1);
}

// Parallel i around the naive matmul (M=4, N=8, K=16): both stores.
TEST(LoopAnnotationTest, ParallelOuterLoop) {
  schedule::State s = MakeState("matmul:M=4,N=8,K=16", {AnnotationStep{2, 0, IterAnnotation::kParallel}});
  ProgramFeatures f = Features(s);
  ASSERT_EQ(f.num_stores, 2) << Program(s);
  for (int row : {0, 1}) {
    EXPECT_FLOAT_EQ(Value(f, row, "parallel_len"), Log(4));
    EXPECT_EQ(Value(f, row, "parallel_num"), 1);
    EXPECT_FLOAT_EQ(Value(f, row, "parallel_prod"), Log(4));
    EXPECT_EQ(Value(f, row, "parallel_pos_outer_spatial"), 1);  // i, then j
    EXPECT_EQ(Value(f, row, "parallel_pos_none"), 0);
  }
}

// k split into k.0 (4) and k.1 (4, unroll), and auto_unroll_max_step 16 on
// the stage: the update nest below k.0 has 4 * 4 = 16 steps, so the pragma
// also marks k.0 unrolled; j's nest (8 * 17 steps) stays a loop.
//   for i (4), j (8):
//     C[...] = 0                                            row 0
//     unrolled k.0 (4): unrolled k.1 (4): C[...] += ...     row 1
TEST(LoopAnnotationTest, UnrollAndAutoUnrollPragma) {
  schedule::State s = MakeState("matmul:M=4,N=8,K=16", {SplitStep{2, 2, {4}, true},
                                                        AnnotationStep{2, 3, IterAnnotation::kUnroll},
                                                        PragmaStep{2, 0, 16}});
  ProgramFeatures f = Features(s);
  ASSERT_EQ(f.num_stores, 2) << Program(s);
  EXPECT_FLOAT_EQ(Value(f, 1, "unroll_len"), Log(4));  // k.1, the innermost
  EXPECT_EQ(Value(f, 1, "unroll_num"), 2);
  EXPECT_FLOAT_EQ(Value(f, 1, "unroll_prod"), Log(16));
  // k.0 and k.1 do not move C[i*8 + j]: reduce loops, k.1 the inner.
  EXPECT_EQ(Value(f, 1, "unroll_pos_inner_reduce"), 1);
  EXPECT_EQ(Value(f, 1, "auto_unroll_max_step"), 16);
  EXPECT_EQ(Value(f, 0, "unroll_pos_none"), 1);
  EXPECT_EQ(Value(f, 0, "auto_unroll_max_step"), 16);  // the pragma is the stage's
}

// The benchmark state: C.local (computed inside C's fused parallel loop
// i.0@j.0) and C's copy-out. For C.local the parallel loop is a consumer's
// loop outside its allocation: outer spatial. For C it is fused across
// both output dimensions (floordiv and floormod of the fused index): mixed.
TEST(LoopAnnotationTest, ConsumerLoopsAreOuterSpatialFusedLoopsMixed) {
  schedule::State s = FeatureBenchState();
  ProgramFeatures f = Features(s);
  ASSERT_EQ(f.num_stores, 3) << Program(s);
  int local = RowOfStage(f, s, "C.local"), out = RowOfStage(f, s, "C");
  EXPECT_EQ(Value(f, local, "parallel_pos_outer_spatial"), 1);
  EXPECT_EQ(Value(f, out, "parallel_pos_mixed"), 1);
  EXPECT_FLOAT_EQ(Value(f, out, "parallel_len"), Log(32));
  // C's copy-out vectorizes j.1 (512), C.local's update j.3 (16).
  EXPECT_FLOAT_EQ(Value(f, out, "vec_len"), Log(512));
  EXPECT_FLOAT_EQ(Value(f, local, "vec_len"), Log(16));
  EXPECT_EQ(Value(f, local, "vec_pos_inner_spatial"), 1);
  EXPECT_EQ(Value(f, local, "auto_unroll_max_step"), 64);
  // 1024^3 mads; 9 loops around the update (extent-1 loops are gone).
  EXPECT_FLOAT_EQ(Value(f, local, "float_mad"), Log(1024.0 * 1024 * 1024));
  EXPECT_EQ(Value(f, local, "num_loops"), 9);
}

// A local tile's stores carry the largest pragma along their chain of
// compute_at targets: with 512 on C as well, C.local's rows read 512 (the
// output's pragma copies the write-back around the tile), with 16 on C their
// own 64; C's copy-out reads its own.
TEST(LoopAnnotationTest, ATilesStoresCarryTheLargestPragmaAroundThem) {
  schedule::State s = FeatureBenchState();
  ASSERT_TRUE(s.Apply(PragmaStep{3, 0, 512}).ok());
  ProgramFeatures f = Features(s);
  int local = RowOfStage(f, s, "C.local"), out = RowOfStage(f, s, "C");
  ASSERT_GE(local, 0) << Program(s);
  ASSERT_GE(out, 0) << Program(s);
  EXPECT_EQ(Value(f, local, "auto_unroll_max_step"), 512);
  EXPECT_EQ(Value(f, out, "auto_unroll_max_step"), 512);
  ASSERT_TRUE(s.Apply(PragmaStep{3, 0, 16}).ok());
  f = Features(s);
  EXPECT_EQ(Value(f, local, "auto_unroll_max_step"), 64);
  EXPECT_EQ(Value(f, out, "auto_unroll_max_step"), 16);
}

}  // namespace
}  // namespace tuneforge::search::testing
