// Definitions that are valid: what they build and compute.
#include <cmath>

#include "common/te/expr_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::ElementsAre;
using optest::At;

TEST(DefinitionBuildTest, TheLanguageSketchBuilds) {
  Workload w = optest::MustDefine(R"(
# comments
let N = 1024                      # integer constants, usable in shapes and index arithmetic
input A: float32[N, 512]
input B: float32[512, 256]
C[i: N, j: 256] = sum(A[i, k] * B[k, j], k: 512)            # reduction axes declared inline
D[i: N, j: 256] = max(C[i, j], 0.0)
P[i: N+2, j: 256] = select(i >= 1 && i <= N, C[i-1, j], 0.0)
M[i: N] = max(C[i, j], j: 256 where j % 2 == 0)              # max/min reductions, optional where
)");
  ASSERT_NE(w.dag, nullptr);
  EXPECT_EQ(w.op, "test");
  EXPECT_THAT(optest::OpNames(*w.dag), ElementsAre("A", "B", "C", "D", "P", "M"));
  std::vector<std::string> outputs;
  for (int i : w.dag->OutputOps()) outputs.push_back(w.dag->op(i)->name);
  EXPECT_THAT(outputs, ElementsAre("D", "P", "M"));
  EXPECT_THAT(optest::FindOp(*w.dag, "P")->shape, ElementsAre(1026, 256));
  EXPECT_EQ(optest::FindOp(*w.dag, "C")->tag, "test");
  EXPECT_DOUBLE_EQ(w.dag->flops(), 2.0 * 1024 * 256 * 512 + 1024 * 256 + 1024 * 256);
}

TEST(DefinitionBuildTest, WhereSkipsIterations) {
  Workload w = optest::MustDefine(
      "input X: float32[3, 6]\nM[i: 3] = max(X[i, j], j: 6 where j % 2 == 0)\n"
      "S[i: 3] = sum(X[i, j], j: 6 where j >= 4)\n");
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 2u);
  for (int64_t i = 0; i < 3; ++i) {
    double best = std::max({At(in[0], {i, 0}), At(in[0], {i, 2}), At(in[0], {i, 4})});
    EXPECT_EQ(At(out[0], {i}), best);
    EXPECT_FLOAT_EQ(At(out[1], {i}), At(in[0], {i, 4}) + At(in[0], {i, 5}));
  }
}

TEST(DefinitionBuildTest, ConstantsFoldAndAdaptToTheOtherOperand) {
  Workload w = optest::MustDefine(
      "let N = 6\nlet H = N // 4 + 1\nlet half = 1.0 / 2\ninput A: float64[N]\n"
      "B[i: H * 2] = A[i + (N - H * 2)] * half + 3\n");
  Tensor b = optest::FindOp(*w.dag, "B");
  ASSERT_NE(b, nullptr);
  EXPECT_THAT(b->shape, ElementsAre(4));
  EXPECT_EQ(b->dtype, DType::Float64());  // the float32 literal adapted to float64 data
  EXPECT_EQ(ToString(b->body), "((A[(i + 2)] * 0.5d) + 3.0d)");
}

TEST(DefinitionBuildTest, IntegerArithmeticFloorsAndCastsConvert) {
  Workload w = optest::MustDefine(
      "input A: int32[8]\n"
      "Q[i: 8] = float32((i - 4) // 3) + float32(A[i] % 3)\n"
      "R[i: 8] = float32(-i) * float32(int32(2.9))\n");
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 2u);
  for (int64_t i = 0; i < 8; ++i) {
    int64_t a = in[0].GetInt(i);
    double floordiv = std::floor((i - 4) / 3.0);
    double floormod = a - std::floor(a / 3.0) * 3;
    EXPECT_EQ(out[0].GetDouble(i), floordiv + floormod) << i;
    EXPECT_EQ(out[1].GetDouble(i), -2.0 * i);
  }
}

TEST(DefinitionBuildTest, FunctionsAndLogic) {
  Workload w = optest::MustDefine(
      "input A: float32[5]\n"
      "B[i: 5] = select(!(i < 2) || i == 0, pow(abs(A[i]), 2.0), -sqrt(exp(A[i]))) + min(A[i], 0.5)\n"
      "C[i: 5] = tanh(A[i]) + sigmoid(A[i]) + erf(A[i]) + floor(A[i]) + ceil(A[i]) + round(A[i])"
      " + rsqrt(exp(A[i])) + log(exp(A[i]))\n");
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 2u);
  for (int64_t i = 0; i < 5; ++i) {
    double a = in[0].GetDouble(i);
    double b = (!(i < 2) || i == 0 ? a * a : -std::sqrt(std::exp(a))) + std::min(a, 0.5);
    EXPECT_NEAR(out[0].GetDouble(i), b, 1e-5);
    double c = std::tanh(a) + 1 / (1 + std::exp(-a)) + std::erf(a) + std::floor(a) + std::ceil(a) +
               std::round(a) + 1 / std::sqrt(std::exp(a)) + a;
    EXPECT_NEAR(out[1].GetDouble(i), c, 1e-5);
  }
}

TEST(DefinitionBuildTest, ExplicitOutputsKeepTheirOrder) {
  Workload w = optest::MustDefine(
      "input A: float32[4]\nB[i: 4] = A[i] + 1.0\nC[i: 4] = A[i] * 2.0\noutput C, B\n");
  std::vector<std::string> outputs;
  for (int i : w.dag->OutputOps()) outputs.push_back(w.dag->op(i)->name);
  // The DAG lists ops in dependency order; both are outputs.
  EXPECT_THAT(outputs, ::testing::UnorderedElementsAre("B", "C"));
}

TEST(DefinitionBuildTest, GuardsTheCheckCannotReadAreTrusted) {
  // i + k < 8 mentions two axes: the bounds check trusts it.
  Workload w = optest::MustDefine(
      "input A: float32[8]\nC[i: 8] = sum(A[i + k], k: 2 where i + k < 8)\n");
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FLOAT_EQ(out[0].GetDouble(7), in[0].GetDouble(7));
  // A guard on the negated branch narrows too.
  optest::MustDefine("input A: float32[8]\nC[i: 9] = select(i < 1, 0.0, A[i - 1])\n");
  optest::MustDefine("input A: float32[8]\nC[i: 9] = select(!(i >= 8), A[i], 0.0)\n");
  optest::MustDefine("input A: float32[8]\nC[i: 10] = select(1 <= i && i - 1 < 8, A[i - 1], 0.0)\n");
}

TEST(DefinitionBuildTest, IntegerWidthsWiden) {
  Workload w = optest::MustDefine("input A: int32[4]\ninput B: int8[4]\nC[i: 4] = A[i] * B[i] + i\n");
  EXPECT_EQ(optest::FindOp(*w.dag, "C")->dtype, DType::Int64());  // i is an int64 index
}

}  // namespace
}  // namespace tuneforge::te
