// Per-buffer features on an elementwise op (no reuse) and on hand-built
// loop nests, where flat and multi-dimensional indices must agree.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "common/lower/passes/flatten_buffers.h"
#include "search/features/feature_table.h"
#include "tests/search/features/feature_test_util.h"

namespace tuneforge::search::testing {
namespace {

using lower::ForKind;
using te::Expr;

// add[i, j] = A[i, j] + B[i, j], M=8, N=32: every element is touched once.
TEST(BufferFeaturesTest, ElementwiseHasNoReuse) {
  schedule::State s = MakeState("add:M=8,N=32");
  ProgramFeatures f = Features(s);
  ASSERT_EQ(f.num_stores, 1) << Program(s);
  EXPECT_FLOAT_EQ(Value(f, 0, "float_addsub"), Log(256));
  EXPECT_EQ(Value(f, 0, "float_mad"), 0);
  // All three buffers move 256 * 4 bytes: ordered by name A, B, add.
  EXPECT_EQ(Value(f, 0, "B0.acc_type_read"), 1);
  EXPECT_EQ(Value(f, 0, "B1.acc_type_read"), 1);
  EXPECT_EQ(Value(f, 0, "B2.acc_type_write"), 1);
  for (int b = 0; b < 3; ++b) {
    const std::string p = absl::StrCat("B", b, ".");
    EXPECT_FLOAT_EQ(Value(f, 0, p + "bytes"), Log(1024));
    EXPECT_FLOAT_EQ(Value(f, 0, p + "unique_bytes"), Log(1024));
    // Stride loop j: 32 elements = 2 lines per sweep, 8 sweeps.
    EXPECT_FLOAT_EQ(Value(f, 0, p + "lines"), Log(16));
    EXPECT_FLOAT_EQ(Value(f, 0, p + "unique_lines"), Log(16));
    EXPECT_EQ(Value(f, 0, p + "reuse_type_no_reuse"), 1);
    EXPECT_EQ(Value(f, 0, p + "reuse_ct"), 0);
    EXPECT_EQ(Value(f, 0, p + "reuse_dis_iter"), 0);
    EXPECT_EQ(Value(f, 0, p + "reuse_dis_bytes"), 0);
    EXPECT_FLOAT_EQ(Value(f, 0, p + "bytes_d_reuse_ct"), Log(1024));  // divided by max(0, 1)
    EXPECT_FLOAT_EQ(Value(f, 0, p + "stride"), Log(1));
  }
  EXPECT_EQ(Value(f, 0, "B3.bytes"), 0);
  // One add per 3 * 4 bytes at every level: the curve is flat.
  EXPECT_NEAR(Value(f, 0, "arith_intensity_curve_9"), 1.0 / 12, 1e-6);
}

te::Buffer MakeBuffer(const std::string& name, std::vector<int64_t> shape) {
  auto b = std::make_shared<te::BufferNode>();
  b->name = name;
  b->dtype = te::DType::Float32();
  b->shape = std::move(shape);
  return b;
}

// By hand, with 2-D indices:
//   parallel (i, 0, 16)
//     vectorized (j, 0, 8)
//       if (i < 10) Out[i, j] = A[j, i] * 2 + 1
lower::LoweredFunc HandBuiltNest() {
  te::Buffer a = MakeBuffer("A", {8, 16}), out = MakeBuffer("Out", {16, 8});
  te::Var i = te::MakeVar("i"), j = te::MakeVar("j");
  Expr load = te::MakeBufferLoad(a, {Expr(j), Expr(i)}, te::DType::Float32());
  lower::Stmt store = lower::MakeStore(out, {Expr(i), Expr(j)}, load * Expr(2.0f) + Expr(1.0f));
  lower::Stmt body = lower::MakeIf(Expr(i) < Expr(10), store);
  body = lower::MakeFor(j, 8, ForKind::kVectorized, body);
  body = lower::MakeFor(i, 16, ForKind::kParallel, body);
  return lower::LoweredFunc{"hand", {a, out}, body};
}

TEST(BufferFeaturesTest, HandBuiltNest) {
  lower::LoweredFunc func = HandBuiltNest();
  ProgramFeatures f = ExtractFeatures(func, nullptr);
  ASSERT_EQ(f.num_stores, 1);
  EXPECT_EQ(f.store_stage, std::vector<int>{-1});  // no state: no stages
  EXPECT_FLOAT_EQ(Value(f, 0, "float_mad"), Log(128));
  EXPECT_FLOAT_EQ(Value(f, 0, "int_cmp"), Log(128));  // the guard, every iteration
  EXPECT_FLOAT_EQ(Value(f, 0, "parallel_len"), Log(16));
  EXPECT_EQ(Value(f, 0, "parallel_pos_outer_spatial"), 1);
  EXPECT_FLOAT_EQ(Value(f, 0, "vec_len"), Log(8));
  EXPECT_EQ(Value(f, 0, "vec_pos_inner_spatial"), 1);
  // A and Out both move 128 * 4 bytes over 128 elements: A (by name) is B0.
  // A[j, i] = A[j*16 + i]: j is the stride loop, 16 elements (64 bytes,
  // one line) apart, 8 lines per sweep, 16 sweeps.
  EXPECT_EQ(Value(f, 0, "B0.acc_type_read"), 1);
  EXPECT_EQ(Value(f, 0, "B1.acc_type_write"), 1);
  const std::string p = "B0.";
  EXPECT_FLOAT_EQ(Value(f, 0, p + "stride"), Log(16));
  EXPECT_FLOAT_EQ(Value(f, 0, p + "lines"), Log(8 * 16));
  EXPECT_FLOAT_EQ(Value(f, 0, p + "unique_bytes"), Log(128 * 4));
  EXPECT_FLOAT_EQ(Value(f, 0, p + "unique_lines"), Log(8));
  EXPECT_EQ(Value(f, 0, "auto_unroll_max_step"), 0);
}

TEST(BufferFeaturesTest, FlatAndMultiDimensionalIndicesAgree) {
  lower::LoweredFunc nested = HandBuiltNest();
  lower::LoweredFunc flat = nested;
  flat.body = lower::FlattenBuffers(nested.body);
  EXPECT_EQ(ExtractFeatures(nested, nullptr).values, ExtractFeatures(flat, nullptr).values);
}

}  // namespace
}  // namespace tuneforge::search::testing
