// Statements: loops of every CPU kind, LetStmt, IfThenElse, temporaries on
// the stack and on the heap.
#include <cstdint>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

TEST(StmtTest, EveryCpuLoopKindComputesTheSameResult) {
  for (ForKind kind : {ForKind::kSerial, ForKind::kParallel, ForKind::kVectorized, ForKind::kUnrolled}) {
    te::Buffer A = Buf("A", {6, 10}), B = Buf("B", {6, 10});
    auto f = Func("kinds", {A, B}, Loop("i", 6, [&](Expr i) {
                    return Loop(
                        "j", 10, [&](Expr j) { return St(B, i * 10 + j, Ld(A, i * 10 + j) * 3.0f + 1.0f); },
                        kind);
                  }, kind));
    std::vector<float> a(60), b(60);
    std::iota(a.begin(), a.end(), 0.0f);
    absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
    ASSERT_TRUE(rc.ok()) << lower::ForKindName(kind) << ": " << rc.status();
    EXPECT_EQ(*rc, 0);
    for (int i = 0; i < 60; ++i) EXPECT_EQ(b[i], a[i] * 3 + 1) << lower::ForKindName(kind);
  }
}

TEST(StmtTest, LoopHintsBecomeLoopMetadata) {
  te::Buffer A = Buf("A", {64});
  auto f = Func("hints", {A}, Seq({Loop("i", 64, [&](Expr i) { return St(A, i, Expr(1.0f)); },
                                       ForKind::kVectorized),
                                  Loop("k", 4, [&](Expr k) { return St(A, k, Expr(2.0f)); },
                                       ForKind::kUnrolled)}));
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host(), {.opt_level = 0});
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find("llvm.loop.vectorize.enable"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("llvm.loop.unroll.full"), std::string::npos) << *ir;
}

TEST(StmtTest, ZeroExtentLoopRunsNoIteration) {
  te::Buffer A = Buf("A", {1});
  auto f = Func("empty", {A}, Seq({Loop("i", 0, [&](Expr) { return St(A, 0, Expr(5.0f)); }),
                                   Loop("p", 0, [&](Expr) { return St(A, 0, Expr(6.0f)); },
                                        ForKind::kParallel)}));
  float a = 1;
  absl::StatusOr<int32_t> rc = RunKernel(f, {&a});
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(a, 1.0f);
}

TEST(StmtTest, LetStmtBindsScalarAndVectorValues) {
  te::Buffer A = Buf("A", {16}), B = Buf("B", {16});
  auto f = Func("lets", {A, B}, Loop("i", 2, [&](Expr i) {
                  return Let("base", i * 8, [&](Expr base) {
                    return Let("x", Ld(A, Vec(base, 8)), [&](Expr x) {
                      return St(B, Vec(base, 8), x * x);
                    });
                  });
                }));
  std::vector<float> a(16), b(16);
  std::iota(a.begin(), a.end(), 1.0f);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(b[i], a[i] * a[i]);
}

TEST(StmtTest, IfThenElseWithAndWithoutElse) {
  te::Buffer A = Buf("A", {10}, DType::Int32()), B = Buf("B", {10}, DType::Int32());
  auto f = Func("branches", {A, B}, Loop("i", 10, [&](Expr i) {
                  Expr x = Ld(A, i);
                  return Seq({lower::MakeIf(x > I32(3), St(B, i, x * I32(10)), St(B, i, I32(-1))),
                              lower::MakeIf(EQ(i, Expr(9)), St(B, i, I32(99)))});
                }));
  std::vector<int32_t> a = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, b(10);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < 9; ++i) EXPECT_EQ(b[i], a[i] > 3 ? a[i] * 10 : -1);
  EXPECT_EQ(b[9], 99);
}

// out[i] = sum_k in[i, k] through a temporary of `elements` floats.
LoweredFunc RowSumsThroughTemporary(int64_t rows, int64_t cols, int64_t elements, ForKind row_kind) {
  te::Buffer In = Buf("In", {rows, cols}), Out = Buf("Out", {rows});
  te::Buffer T = Buf("T", {elements}, DType::Float32(), "local");
  return Func("temp", {In, Out}, Loop("i", rows, [&](Expr i) {
                return lower::MakeAllocate(
                    T, Seq({Loop("k", cols, [&](Expr k) { return St(T, k, Ld(In, i * cols + k) * 2.0f); }),
                            St(T, elements - 1, Expr(0.0f)),
                            Loop("k", cols, [&](Expr k) {
                              return St(T, elements - 1, Ld(T, elements - 1) + Ld(T, k));
                            }),
                            St(Out, i, Ld(T, elements - 1))}));
              }, row_kind));
}

TEST(StmtTest, SmallTemporaryIsAStackAllocaInTheEntryBlock) {
  LoweredFunc f = RowSumsThroughTemporary(4, 8, 16, ForKind::kSerial);
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host(), {.opt_level = 0});
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find("alloca [16 x float]"), std::string::npos) << *ir;
  EXPECT_EQ(ir->find("tuneforge_alloc"), std::string::npos) << *ir;
}

TEST(StmtTest, TemporariesSmallAndBigSerialAndParallel) {
  constexpr int64_t kRows = 8, kCols = 32;
  // 64 B (stack) and 1 MiB (heap, tuneforge_alloc).
  for (int64_t elements : {int64_t{kCols + 1}, int64_t{256 * 1024}}) {
    for (ForKind kind : {ForKind::kSerial, ForKind::kParallel}) {
      LoweredFunc f = RowSumsThroughTemporary(kRows, kCols, elements, kind);
      std::vector<float> in(kRows * kCols), out(kRows);
      std::iota(in.begin(), in.end(), 0.0f);
      absl::StatusOr<int32_t> rc = RunKernel(f, {in.data(), out.data()});
      ASSERT_TRUE(rc.ok()) << rc.status();
      ASSERT_EQ(*rc, 0);
      for (int64_t i = 0; i < kRows; ++i) {
        float want = 0;
        for (int64_t k = 0; k < kCols; ++k) want += 2 * in[i * kCols + k];
        EXPECT_EQ(out[i], want) << elements << " elements, " << lower::ForKindName(kind);
      }
      if (elements * 4 > 64 * 1024) {
        absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host());
        ASSERT_TRUE(ir.ok()) << ir.status();
        EXPECT_NE(ir->find("tuneforge_alloc"), std::string::npos);
        EXPECT_NE(ir->find("tuneforge_free"), std::string::npos);
      }
    }
  }
}

TEST(StmtTest, FailedHeapAllocationReturnsOne) {
  // 2^40 floats cannot be allocated; the kernel reports it instead of crashing.
  te::Buffer Out = Buf("Out", {1});
  te::Buffer Huge = Buf("Huge", {int64_t{1} << 40}, DType::Float32(), "local");
  for (ForKind kind : {ForKind::kSerial, ForKind::kParallel}) {
    auto f = Func("huge", {Out}, Loop("i", 2, [&](Expr) {
                    return lower::MakeAllocate(Huge, Seq({St(Huge, 0, Expr(3.0f)), St(Out, 0, Ld(Huge, 0))}));
                  }, kind));
    float out = 0;
    absl::StatusOr<int32_t> rc = RunKernel(f, {&out});
    ASSERT_TRUE(rc.ok()) << rc.status();
    EXPECT_EQ(*rc, 1) << lower::ForKindName(kind);
    EXPECT_EQ(out, 0.0f);
  }
}

}  // namespace
}  // namespace tuneforge::codegen::testing
