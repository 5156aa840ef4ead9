// LLVM's optimization pipeline as tuneforge runs it: its loop vectorizer
// still takes the small loops a schedule left scalar, and is not handed
// the huge unrolled bodies whose loop-access analysis cost seconds.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

constexpr char kVectorizerOff[] = "!\"llvm.loop.vectorize.enable\", i32 0";

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

// 200 copies of a scalar statement in one loop (a schedule's unrolled tile
// left scalar): 400 memory operations, past the vectorizer's limit.
TEST(LlvmPipelineTest, ALoopOfHundredsOfMemoryOperationsIsLeftToTheSchedule) {
  constexpr int kRows = 16, kCopies = 200;
  te::Buffer A = Buf("A", {kRows * kCopies}), B = Buf("B", {kRows * kCopies});
  auto f = Func("copies", {A, B}, Loop("r", kRows, [&](Expr r) {
                  std::vector<Stmt> body;
                  for (int c = 0; c < kCopies; ++c) {
                    Expr at = r * kCopies + c;
                    body.push_back(St(B, at, Ld(A, at) * 3.0f));
                  }
                  return Seq(body);
                }));
  std::vector<float> a(kRows * kCopies), b(kRows * kCopies);
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.25f * static_cast<float>(i);
  absl::StatusOr<int32_t> rc = RunKernel(f, {a.data(), b.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(b[i], a[i] * 3) << i;
  absl::StatusOr<std::string> ir = EmitLLVMIR(f, Target::Host());
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find(kVectorizerOff), std::string::npos);
}

}  // namespace
}  // namespace tuneforge::codegen::testing
