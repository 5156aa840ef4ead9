// LLVM's optimization pipeline as tuneforge runs it: its loop vectorizer
// still takes the small loops a schedule left scalar, and is not handed
// the huge unrolled bodies whose loop-access analysis cost seconds, nor
// loops of many stores it could not widen, nor copies it could only gather
// lane by lane; a loop
// that zeroes a big accumulator tile is not unrolled into one block of
// hundreds of stores, which instruction selection took 100 ms over; a loop
// too large to unroll is marked so before LLVM's unroller looks at it, and
// a small one is still unrolled. The x86 code generator leaves a loop's
// addresses to its induction variable; AArch64's strength-reduces them.
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "gmock/gmock.h"
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

// Where a copy's element sits: copy-major within a trip (B[r * copies + c],
// a tile's rows unrolled: a store lands `copies` floats after the last
// trip's) or each copy its own row (B[c * trips + r]: every store steps to
// the next float from trip to trip).
enum class CopyLayout { kTripMajor, kCopyRows };

// `trips` iterations of `copies` scalar statements (a schedule's tile,
// unrolled by lowering): runs it, checks it and returns the optimized IR.
std::string ScaledCopiesIr(int trips, int copies, CopyLayout layout = CopyLayout::kTripMajor) {
  te::Buffer A = Buf("A", {trips * copies}), B = Buf("B", {trips * copies});
  auto f = Func("copies", {A, B}, Loop("r", trips, [&](Expr r) {
                  std::vector<Stmt> body;
                  for (int c = 0; c < copies; ++c) {
                    Expr at = layout == CopyLayout::kTripMajor ? r * copies + c : r + c * trips;
                    body.push_back(St(B, at, Ld(A, at) * 3.0f));
                  }
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

// 40 scalar copies a trip whose stores land 40 floats after the last
// trip's (a tile's write-back unrolled over its rows): too few memory
// operations for the first limit, but no store the vectorizer could widen.
TEST(LlvmPipelineTest, ALoopOfManyStridedStoresIsLeftToTheSchedule) {
  const std::string ir = ScaledCopiesIr(64, 40);
  EXPECT_NE(ir.find(kVectorizerOff), std::string::npos) << ir;
}

// The same 40 copies, each store now stepping to the next float from trip
// to trip (B[c * trips + r]): the vectorizer keeps the loop and widens it.
TEST(LlvmPipelineTest, ALoopOfManyConsecutiveStoresIsStillVectorizedByLlvm) {
  const std::string ir = ScaledCopiesIr(64, 40, CopyLayout::kCopyRows);
  EXPECT_EQ(ir.find(kVectorizerOff), std::string::npos) << ir;
  EXPECT_NE(ir.find("store <"), std::string::npos) << ir;
}

// B[i] = A[i * stride] over `rows` trips (a tile's transposing write-back,
// channel-last tile to an output row, left a loop): runs it, checks it and
// returns the optimized IR.
std::string GatheringCopyIr(int rows, int stride) {
  te::Buffer A = Buf("A", {rows * stride}), B = Buf("B", {rows});
  auto f = Func("gather_copy", {A, B}, Loop("i", rows, [&](Expr i) { return St(B, i, Ld(A, i * stride)); }));
  std::vector<float> a(rows * stride), b(rows);
  for (size_t k = 0; k < a.size(); ++k) a[k] = static_cast<float>(k);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  EXPECT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < rows; ++i) EXPECT_EQ(b[i], a[i * stride]) << i;
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host());
  EXPECT_TRUE(ir.ok()) << ir.status();
  return ir.ok() ? *ir : "";
}

// Reading 16 floats apart, the vectorizer could only gather lane by lane (a
// scalar load and a lane insert each): the loop stays scalar.
TEST(LlvmPipelineTest, ACopyThatOnlyGathersIsLeftScalar) {
  const std::string ir = GatheringCopyIr(112, 16);
  EXPECT_NE(ir.find(kVectorizerOff), std::string::npos) << ir;
  EXPECT_EQ(ir.find(" x float>"), std::string::npos) << ir;
}

// Two floats apart (a stride-2 pooling's input), the vectorizer loads whole
// vectors and shuffles the lanes apart: it keeps the loop.
TEST(LlvmPipelineTest, ACopyWithAShortStrideIsStillVectorizedByLlvm) {
  const std::string ir = GatheringCopyIr(112, 2);
  EXPECT_EQ(ir.find(kVectorizerOff), std::string::npos) << ir;
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << ir;
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

// B[5i] = A[7i] + A[7i + 3] in a loop of 1,000, compiled for x86 and AArch64
// on two threads at once (the switch is process-wide, set per target).
TEST(LlvmPipelineTest, OnlyAarch64CodeStrengthReducesLoopAddresses) {
  constexpr int kN = 1000;
  te::Buffer A = Buf("A", {7 * kN}), B = Buf("B", {5 * kN});
  auto f = Func("strided", {A, B}, Loop("i", kN, [&](Expr i) {
                  return St(B, i * 5, Ld(A, i * 7) + Ld(A, i * 7 + 3));
                }, ForKind::kRolled));
  std::vector<float> a(7 * kN), b(5 * kN, -1.0f);
  for (size_t k = 0; k < a.size(); ++k) a[k] = static_cast<float>(k % 97);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < kN; ++i) ASSERT_EQ(b[5 * i], a[7 * i] + a[7 * i + 3]) << i;

  absl::StatusOr<Target> x86 = Target::Parse("x86_64-pc-linux-gnu:cpu=znver4");
  absl::StatusOr<Target> arm = Target::Parse("aarch64");
  ASSERT_TRUE(x86.ok() && arm.ok());
  constexpr int kRounds = 8;
  std::vector<absl::StatusOr<std::string>> x86_code(kRounds), arm_code(kRounds);
  std::thread arm_thread([&] {
    for (int r = 0; r < kRounds; ++r) arm_code[r] = EmitAssembly(f, *arm);
  });
  for (int r = 0; r < kRounds; ++r) x86_code[r] = EmitAssembly(f, *x86);
  arm_thread.join();
  for (int r = 0; r < kRounds; ++r) {
    ASSERT_TRUE(x86_code[r].ok()) << x86_code[r].status();
    ASSERT_TRUE(arm_code[r].ok()) << arm_code[r].status();
    // x86: the counter runs to 1,000 and each address is computed from it
    // (strength-reduced, A's pointer would step by 28 bytes).
    EXPECT_THAT(*x86_code[r], ::testing::ContainsRegex("cmpq\\s+\\$1000,")) << *x86_code[r];
    EXPECT_THAT(*x86_code[r], ::testing::Not(::testing::ContainsRegex("addq\\s+\\$28,"))) << *x86_code[r];
    // AArch64: A's pointer steps by 28 bytes an iteration.
    EXPECT_THAT(*arm_code[r], ::testing::ContainsRegex("add\\s+x[0-9]+, x[0-9]+, #28")) << *arm_code[r];
  }
}

}  // namespace
}  // namespace tuneforge::codegen::testing
