// The naive matmul C[i,j] += A[i,k] * B[k,j] with M=4, N=8, K=16, computed
// by hand. Its lowered program (float32, 4-byte elements, 16 per line):
//   for (i, 0, 4)
//     for (j, 0, 8)
//       C[i*8 + j] = 0                                     row 0 (init)
//       for (k, 0, 16)
//         C[i*8 + j] = C[i*8 + j] + A[i*16 + k] * B[k*8 + j]  row 1 (update)
#include <gtest/gtest.h>

#include "tests/search/features/feature_test_util.h"

namespace tuneforge::search::testing {
namespace {

class NaiveMatmulTest : public ::testing::Test {
 protected:
  void SetUp() override {
    f_ = Features(state_);
    ASSERT_EQ(f_.num_stores, 2) << Program(state_);
  }
  float Update(const std::string& name) const { return Value(f_, 1, name); }
  float Init(const std::string& name) const { return Value(f_, 0, name); }

  schedule::State state_{MakeState("matmul:M=4,N=8,K=16")};
  ProgramFeatures f_;
};

TEST_F(NaiveMatmulTest, ComputeCounts) {
  // One a*b + c per iteration of i, j, k: 4 * 8 * 16 = 512 mads, nothing else.
  EXPECT_FLOAT_EQ(Update("float_mad"), Log(512));
  EXPECT_EQ(Update("float_addsub"), 0);
  EXPECT_EQ(Update("float_mul"), 0);
  EXPECT_EQ(Update("int_addsub"), 0);  // index arithmetic is not counted
  EXPECT_EQ(Init("float_mad"), 0);     // C = 0 computes nothing
}

TEST_F(NaiveMatmulTest, LoopCounts) {
  EXPECT_FLOAT_EQ(Update("outer_prod"), Log(512));
  EXPECT_EQ(Update("num_loops"), 3);
  EXPECT_FLOAT_EQ(Init("outer_prod"), Log(32));  // i * j
  EXPECT_EQ(Init("num_loops"), 2);
  EXPECT_EQ(Update("vec_pos_none"), 1);
  EXPECT_EQ(Update("unroll_pos_none"), 1);
  EXPECT_EQ(Update("parallel_pos_none"), 1);
  EXPECT_EQ(Update("auto_unroll_max_step"), 0);
  EXPECT_EQ(Update("alloc_size"), 0);  // C is an argument, not allocated
  EXPECT_EQ(f_.store_stage, (std::vector<int>{2, 2}));
}

// Buffers sorted by bytes: C (read and written: 2 * 512 * 4 = 4096), then
// B and A (512 * 4 = 2048 each; B first, its footprint is larger).
TEST_F(NaiveMatmulTest, OutputBufferIsReusedAcrossK) {
  EXPECT_EQ(Update("B0.acc_type_read_write"), 1);
  EXPECT_FLOAT_EQ(Update("B0.bytes"), Log(4096));
  EXPECT_FLOAT_EQ(Update("B0.unique_bytes"), Log(4 * 8 * 4));  // 32 elements
  // Stride loop j (step 1): a sweep of 8 elements is 1 line, 4 sweeps (i).
  EXPECT_FLOAT_EQ(Update("B0.lines"), Log(4));
  EXPECT_FLOAT_EQ(Update("B0.unique_lines"), Log(2));  // 128 contiguous bytes
  // k does not move C[i*8+j]: reused 16 times, 1 iteration apart, with
  // A, B and C touching 3 * 4 bytes in between.
  EXPECT_EQ(Update("B0.reuse_type_loop_multiple_read"), 1);
  EXPECT_FLOAT_EQ(Update("B0.reuse_ct"), Log(16));
  EXPECT_FLOAT_EQ(Update("B0.reuse_dis_iter"), Log(1));
  EXPECT_FLOAT_EQ(Update("B0.reuse_dis_bytes"), Log(12));
  EXPECT_FLOAT_EQ(Update("B0.bytes_d_reuse_ct"), Log(4096.0 / 16));
  EXPECT_FLOAT_EQ(Update("B0.stride"), Log(1));
}

TEST_F(NaiveMatmulTest, BIsReusedAcrossI) {
  EXPECT_EQ(Update("B1.acc_type_read"), 1);
  EXPECT_FLOAT_EQ(Update("B1.bytes"), Log(2048));
  EXPECT_FLOAT_EQ(Update("B1.unique_bytes"), Log(16 * 8 * 4));
  // Stride loop k (step 8 elements = 32 bytes): a sweep of 16 covers
  // ceil((15 * 8 + 1) / 16) = 8 lines; 4 * 8 sweeps (i, j).
  EXPECT_FLOAT_EQ(Update("B1.lines"), Log(8 * 32));
  EXPECT_FLOAT_EQ(Update("B1.unique_lines"), Log(512 / 64));
  EXPECT_FLOAT_EQ(Update("B1.stride"), Log(8));
  // k and j move B[k*8+j], i does not: 4 uses, 8 * 16 iterations apart,
  // during which A touches 16, B 128 and C 8 elements: 152 * 4 bytes.
  EXPECT_EQ(Update("B1.reuse_type_loop_multiple_read"), 1);
  EXPECT_FLOAT_EQ(Update("B1.reuse_ct"), Log(4));
  EXPECT_FLOAT_EQ(Update("B1.reuse_dis_iter"), Log(128));
  EXPECT_FLOAT_EQ(Update("B1.reuse_dis_bytes"), Log(608));
}

TEST_F(NaiveMatmulTest, AIsReusedAcrossJ) {
  EXPECT_EQ(Update("B2.acc_type_read"), 1);
  EXPECT_FLOAT_EQ(Update("B2.bytes"), Log(2048));
  EXPECT_FLOAT_EQ(Update("B2.unique_bytes"), Log(4 * 16 * 4));
  // Stride loop k (step 1): 16 elements = 1 line per sweep; 32 sweeps.
  EXPECT_FLOAT_EQ(Update("B2.lines"), Log(32));
  EXPECT_FLOAT_EQ(Update("B2.unique_lines"), Log(4));
  EXPECT_FLOAT_EQ(Update("B2.stride"), Log(1));
  // j does not move A[i*16+k]: 8 uses, 16 iterations (k) apart, with A 16,
  // B 16 and C 1 elements in between: 33 * 4 bytes.
  EXPECT_EQ(Update("B2.reuse_type_loop_multiple_read"), 1);
  EXPECT_FLOAT_EQ(Update("B2.reuse_ct"), Log(8));
  EXPECT_FLOAT_EQ(Update("B2.reuse_dis_iter"), Log(16));
  EXPECT_FLOAT_EQ(Update("B2.reuse_dis_bytes"), Log(132));
  EXPECT_FLOAT_EQ(Update("B2.unique_lines_d_reuse_ct"), Log(4.0 / 8));
  // Three buffers: slots 3 and 4 stay zero.
  EXPECT_EQ(Update("B3.bytes"), 0);
  EXPECT_EQ(Update("B4.acc_type_read"), 0);
}

TEST_F(NaiveMatmulTest, InitIsASerialReadWriteReuseOfC) {
  // C = 0 writes C[i*8+j]; j moves it, but the update inside the same j
  // iteration accesses C again: serial reuse, once, 1 iteration apart (the
  // init runs once per j), with 4 (init: C) + 132 (update over k) bytes.
  EXPECT_EQ(Init("B0.acc_type_write"), 1);
  EXPECT_FLOAT_EQ(Init("B0.bytes"), Log(32 * 4));
  EXPECT_EQ(Init("B0.reuse_type_serial_multiple_read_write"), 1);
  EXPECT_FLOAT_EQ(Init("B0.reuse_ct"), Log(1));
  EXPECT_FLOAT_EQ(Init("B0.reuse_dis_iter"), Log(1));
  EXPECT_FLOAT_EQ(Init("B0.reuse_dis_bytes"), Log(136));
  EXPECT_EQ(Init("B1.bytes"), 0);
}

// Points (x = log2(ops + 1), y = ops / unique bytes), 2 ops per mad:
//   one execution:  ops 2,    bytes 3 * 4           -> (1.585, 0.1667)
//   inside k:       ops 32,   bytes (16 + 16 + 1) * 4 -> (5.044, 0.2424)
//   inside j:       ops 256,  bytes (16 + 128 + 8) * 4 -> (8.006, 0.4211)
//   whole nest:     ops 1024, bytes (64 + 128 + 32) * 4 -> (10.001, 1.1429)
// Sample i is at x = 10.001 * (i + 1) / 10.
TEST_F(NaiveMatmulTest, ArithmeticIntensityCurve) {
  // x = 1.0001, before the first point: on the line from the origin.
  EXPECT_NEAR(Update("arith_intensity_curve_0"), (2.0 / 12) * (std::log2(1025.0) / 10) / std::log2(3.0), 1e-5);
  // x = 5.0007, between the first and second point.
  double x = std::log2(1025.0) / 2, x0 = std::log2(3.0), x1 = std::log2(33.0);
  EXPECT_NEAR(Update("arith_intensity_curve_4"), 2.0 / 12 + (32.0 / 132 - 2.0 / 12) * (x - x0) / (x1 - x0), 1e-5);
  EXPECT_NEAR(Update("arith_intensity_curve_9"), 1024.0 / 896, 1e-5);
  for (int i = 1; i < 10; ++i)
    EXPECT_GE(Update("arith_intensity_curve_" + std::to_string(i)),
              Update("arith_intensity_curve_" + std::to_string(i - 1)));
  // The init computes nothing: no curve.
  EXPECT_EQ(Init("arith_intensity_curve_9"), 0);
}

}  // namespace
}  // namespace tuneforge::search::testing
