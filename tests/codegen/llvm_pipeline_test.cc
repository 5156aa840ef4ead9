// LLVM's optimization pipeline as tuneforge runs it: its loop vectorizer
// still takes the small loops a schedule left scalar, and is not handed
// the huge unrolled bodies whose loop-access analysis cost seconds; a loop
// that zeroes a big accumulator tile is not unrolled into one block of
// hundreds of stores, which instruction selection took 100 ms over; a loop
// too large to unroll is marked so before LLVM's unroller looks at it, and
// a small one is still unrolled.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

constexpr char kVectorizerOff[] = "!\"llvm.loop.vectorize.enable\", i32 0";
constexpr char kUnrollOff[] = "!\"llvm.loop.unroll.disable\"";

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A conv's accumulator tile zeroed as its reduction's init: `rows` rows of
// `vectors` stores of 8 zeros each (the inner copies already unrolled by the
// schedule). Each row leaves 8 floats untouched after it, as an interleaved
// tile does, so that LLVM cannot make the nest one memset. Runs it, checks
// what it wrote and returns the optimized LLVM IR ("" on a failure).
std::string ZeroTileIr(int rows, int vectors) {
  const int row = (vectors + 1) * 8;
  te::Buffer out = Buf("out", {rows * row});
  lower::LoweredFunc f = Func("zero_tile", {out}, Loop("oh", rows, [&](Expr oh) {
                                std::vector<Stmt> stores;
                                for (int v = 0; v < vectors; ++v)
                                  stores.push_back(St(out, Vec(oh * row + v * 8, 8), Splat(0.0f, 8)));
                                return Seq(stores);
                              }));
  std::vector<float> o(rows * row, 7.0f);
  absl::StatusOr<int32_t> rc = RunKernel(f, {o.data()});
  EXPECT_TRUE(rc.ok()) << rc.status();
  for (size_t i = 0; i < o.size(); ++i) EXPECT_EQ(o[i], static_cast<int>(i % row) < row - 8 ? 0.0f : 7.0f) << i;
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host());
  EXPECT_TRUE(ir.ok()) << ir.status();
  return ir.ok() ? *ir : "";
}

// A rolled loop (lowering's form of a wide copy gathered lane by lane)
// stays a loop in the optimized IR: LLVM does not unroll it.
TEST(LlvmPipelineTest, ARolledLoopIsNotUnrolled) {
  constexpr int kRows = 14, kLanes = 64;
  te::Buffer A = Buf("A", {kLanes * kRows}), B = Buf("B", {kRows * kLanes});
  auto f = Func("transpose", {A, B}, Loop("i", kRows, [&](Expr i) {
                  return Loop("j", kLanes, [&](Expr j) { return St(B, i * kLanes + j, Ld(A, j * kRows + i)); },
                              ForKind::kRolled);
                }));
  std::vector<float> a(kLanes * kRows), b(kRows * kLanes);
  for (size_t k = 0; k < a.size(); ++k) a[k] = static_cast<float>(k);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < kRows; ++i)
    for (int j = 0; j < kLanes; ++j) ASSERT_EQ(b[i * kLanes + j], a[j * kRows + i]) << i << "," << j;
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host());
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find(kUnrollOff), std::string::npos) << *ir;
  // LLVM may copy the serial outer loop, not the rolled one: at most one
  // scalar load per row, and no vector of them.
  EXPECT_LE(Count(*ir, "load float"), kRows) << *ir;
  EXPECT_EQ(ir->find(" x float>"), std::string::npos) << *ir;
}

TEST(LlvmPipelineTest, ASmallScalarLoopIsVectorizedByLlvm) {
  constexpr int kN = 1024;
  te::Buffer A = Buf("A", {kN}), B = Buf("B", {kN});
  auto f = Func("scale", {A, B}, Loop("i", kN, [&](Expr i) { return St(B, i, Ld(A, i) * 2.0f + 1.0f); }));
  std::vector<float> a(kN), b(kN);
  for (int i = 0; i < kN; ++i) a[i] = 0.5f * i;
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < kN; ++i) ASSERT_EQ(b[i], a[i] * 2 + 1) << i;
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host());
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find(" x float>"), std::string::npos) << *ir;
  EXPECT_EQ(ir->find(kVectorizerOff), std::string::npos) << *ir;
}

// `trips` iterations of `copies` scalar statements (a schedule's tile,
// unrolled by lowering): runs it, checks it and returns the optimized IR.
std::string ScaledCopiesIr(int trips, int copies) {
  te::Buffer A = Buf("A", {trips * copies}), B = Buf("B", {trips * copies});
  auto f = Func("copies", {A, B}, Loop("r", trips, [&](Expr r) {
                  std::vector<Stmt> body;
                  for (int c = 0; c < copies; ++c) body.push_back(St(B, r * copies + c, Ld(A, r * copies + c) * 3.0f));
                  return Seq(body);
                }));
  std::vector<float> a(trips * copies), b(trips * copies);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.25f * static_cast<float>(i);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  EXPECT_TRUE(rc.ok()) << rc.status();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(b[i], a[i] * 3) << i;
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host());
  EXPECT_TRUE(ir.ok()) << ir.status();
  return ir.ok() ? *ir : "";
}

// 200 copies of a scalar statement in one loop (a schedule's unrolled tile
// left scalar): 400 memory operations, past the vectorizer's limit.
TEST(LlvmPipelineTest, ALoopOfHundredsOfMemoryOperationsIsLeftToTheSchedule) {
  const std::string ir = ScaledCopiesIr(16, 200);
  EXPECT_NE(ir.find(kVectorizerOff), std::string::npos);
}

TEST(LlvmPipelineTest, ALoopTooLargeToUnrollIsMarkedSoBeforeTheUnrollerLooksAtIt) {
  // 6 channels around a 300-statement tile: over a thousand instructions
  // a trip, six times O3's largest unroll.
  const std::string ir = ScaledCopiesIr(6, 300);
  EXPECT_NE(ir.find(kUnrollOff), std::string::npos) << ir;
  // The tile once, in its loop (LLVM joins its stores into vectors): not
  // six times.
  EXPECT_LE(Count(ir, "store "), 300) << ir;
  EXPECT_GT(Count(ir, "store "), 0) << ir;
}

TEST(LlvmPipelineTest, ASmallLoopIsStillUnrolledByLlvm) {
  const std::string ir = ScaledCopiesIr(4, 4);
  ASSERT_FALSE(ir.empty());
  EXPECT_EQ(ir.find(kUnrollOff), std::string::npos) << ir;
  // Fully unrolled (and vectorized, 4 floats a store): no loop left.
  EXPECT_EQ(ir.find("llvm.loop"), std::string::npos) << ir;
}

TEST(LlvmPipelineTest, ZeroingATileOfHundredsOfVectorsStaysALoop) {
  const std::string ir = ZeroTileIr(14, 14);  // 196 stores if fully unrolled
  EXPECT_NE(ir.find(kUnrollOff), std::string::npos) << ir;
  EXPECT_LT(Count(ir, "store "), 40) << ir;  // one row's stores (and maybe a remainder), not 196
}

TEST(LlvmPipelineTest, ZeroingARegisterSizedTileIsUnrolledAsBefore) {
  const std::string ir = ZeroTileIr(4, 3);  // 12 vectors: a matmul's register tile
  ASSERT_FALSE(ir.empty());
  EXPECT_EQ(ir.find(kUnrollOff), std::string::npos) << ir;
}

}  // namespace
}  // namespace tuneforge::codegen::testing
