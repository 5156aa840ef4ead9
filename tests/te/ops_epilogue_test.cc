// Epilogue chains ("conv2d+bias+relu") and the stand-alone elementwise ops.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/te/ops/epilogue.h"
#include "common/te/ops/matmul.h"
#include "common/te/ops/norm.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using optest::At;
using optest::InputSlot;

TEST(OpsEpilogueTest, ConvBiasReluAddsOneStagePerEpilogue) {
  Workload w = optest::MustParse("conv2d+bias+relu:N=1,C=2,H=5,W=5,K=3,R=3,S=3,pad=1");
  EXPECT_EQ(w.op, "conv2d+bias+relu");
  EXPECT_THAT(optest::OpNames(*w.dag),
              ElementsAre("data", "pad", "kernel", "conv2d", "bias", "bias_add", "relu"));
  EXPECT_THAT(optest::FindOp(*w.dag, "bias")->shape, ElementsAre(3));
  EXPECT_EQ(optest::FindOp(*w.dag, "bias_add")->tag, "bias");
  EXPECT_EQ(optest::FindOp(*w.dag, "relu")->tag, "relu");
  // Values: relu(conv + bias[k]).
  Workload plain = optest::MustParse("conv2d:N=1,C=2,H=5,W=5,K=3,R=3,S=3,pad=1");
  std::vector<NDArray> in = optest::RandomInputs(*w.dag, 2);
  std::vector<NDArray> fused = optest::Run(*w.dag, in);
  std::vector<NDArray> plain_in;
  for (const std::string name : {"data", "kernel"}) {
    absl::StatusOr<NDArray> copy = in[InputSlot(*w.dag, name)].Copy();
    ASSERT_TRUE(copy.ok());
    plain_in.push_back(*std::move(copy));
  }
  ASSERT_EQ(InputSlot(*plain.dag, "data"), 0u);
  std::vector<NDArray> conv = optest::Run(*plain.dag, plain_in);
  ASSERT_EQ(fused.size(), 1u);
  ASSERT_EQ(conv.size(), 1u);
  const NDArray& bias = in[InputSlot(*w.dag, "bias")];
  for (int64_t i = 0; i < conv[0].num_elements(); ++i) {
    int64_t k = conv[0].Unflatten(i)[1];
    EXPECT_FLOAT_EQ(fused[0].GetDouble(i),
                    std::max(0.0, static_cast<double>(static_cast<float>(conv[0].GetDouble(i) +
                                                                         bias.GetDouble(k)))));
  }
}

TEST(OpsEpilogueTest, ResidualAddTakesAnInputOfTheOutputShape) {
  Workload w = optest::MustParse("conv2d+add+relu:N=1,C=4,H=6,W=6,K=8,R=1,S=1");
  Tensor residual = optest::FindOp(*w.dag, "residual");
  ASSERT_NE(residual, nullptr);
  EXPECT_THAT(residual->shape, ElementsAre(1, 8, 6, 6));
  ASSERT_EQ(w.dag->OutputOps().size(), 1u);
  EXPECT_EQ(w.dag->op(w.dag->OutputOps()[0])->name, "relu");
}

TEST(OpsEpilogueTest, MatmulAndDenseChains) {
  Workload m = optest::MustParse("matmul+relu:M=4,N=5,K=3");
  EXPECT_THAT(optest::OpNames(*m.dag), ElementsAre("A", "B", "C", "relu"));
  Workload d = optest::MustParse("dense+bias+gelu:M=2,N=6,K=4");
  EXPECT_THAT(optest::FindOp(*d.dag, "bias")->shape, ElementsAre(6));
  std::vector<NDArray> in = optest::RandomInputs(*d.dag);
  std::vector<NDArray> out = optest::Run(*d.dag, in);
  ASSERT_EQ(out.size(), 1u);
  const NDArray &x = in[InputSlot(*d.dag, "data")], &wt = in[InputSlot(*d.dag, "weight")],
                &b = in[InputSlot(*d.dag, "bias")];
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 6; ++j) {
      double v = At(b, {j});
      for (int64_t k = 0; k < 4; ++k) v += At(x, {i, k}) * At(wt, {j, k});
      EXPECT_NEAR(At(out[0], {i, j}), 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), 1e-5);
    }
}

TEST(OpsEpilogueTest, EachUnaryEpilogueComputesItsFormula) {
  struct Case {
    const char* name;
    double (*expected)(double);
  } cases[] = {
      {"relu", [](double x) { return std::max(x, 0.0); }},
      {"relu6", [](double x) { return std::min(std::max(x, 0.0), 6.0); }},
      {"leaky_relu", [](double x) { return x > 0 ? x : 0.01 * x; }},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"silu", [](double x) { return x / (1 + std::exp(-x)); }},
  };
  for (const Case& c : cases) {
    Workload w = optest::MustParse(absl::StrCat("relu+", c.name, ":M=3,N=5,dtype=float64"));
    std::vector<NDArray> in = optest::RandomInputs(*w.dag);
    for (int64_t i = 0; i < in[0].num_elements(); ++i) in[0].SetDouble(i, 8.0 * in[0].GetDouble(i));
    std::vector<NDArray> out = optest::Run(*w.dag, in);
    ASSERT_EQ(out.size(), 1u);
    for (int64_t i = 0; i < out[0].num_elements(); ++i)
      EXPECT_NEAR(out[0].GetDouble(i), c.expected(std::max(in[0].GetDouble(i), 0.0)), 1e-12)
          << c.name;
  }
}

TEST(OpsEpilogueTest, RepeatedEpiloguesGetFreshNames) {
  Workload w = optest::MustParse("add+add+relu+relu:M=2,N=2");
  EXPECT_THAT(optest::OpNames(*w.dag),
              ElementsAre("A", "B", "add", "residual", "add_1", "relu", "relu_1"));
}

TEST(OpsEpilogueTest, EpiloguesAreElementwiseAndInlinable) {
  Workload w = optest::MustParse("conv2d+bias+relu:N=1,C=2,H=5,W=5,K=3,R=3,S=3,pad=1");
  const ComputeDag& dag = *w.dag;
  int conv = dag.IndexOf(optest::FindOp(dag, "conv2d").get());
  int bias_add = dag.IndexOf(optest::FindOp(dag, "bias_add").get());
  int relu = dag.IndexOf(optest::FindOp(dag, "relu").get());
  EXPECT_TRUE(dag.ReadsElementwise(bias_add, conv));
  EXPECT_TRUE(dag.ReadsElementwise(relu, bias_add));
  EXPECT_TRUE(dag.analysis(relu).is_elementwise);
  EXPECT_TRUE(dag.analysis(bias_add).is_strictly_inlinable);
  EXPECT_TRUE(dag.analysis(relu).is_strictly_inlinable);
  EXPECT_TRUE(dag.analysis(relu).is_output);
  EXPECT_FALSE(dag.analysis(conv).is_output);
  EXPECT_THAT(dag.analysis(conv).consumers, ElementsAre(bias_add));
}

TEST(OpsEpilogueTest, BiasNeedsAChannelAxis) {
  absl::StatusOr<ops::BuiltOp> norm = ops::Norm({.M = 4, .N = 4});
  ASSERT_TRUE(norm.ok());
  absl::StatusOr<ops::BuiltOp> op = ops::ApplyEpilogue("bias", *norm);
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("'norm' has no channel axis"));
}

TEST(OpsEpilogueTest, FloatOnlyEpiloguesRejectIntegers) {
  absl::StatusOr<ops::BuiltOp> mm = ops::Matmul({.M = 2, .N = 2, .K = 2, .dtype = DType::Int32()});
  ASSERT_TRUE(mm.ok());
  absl::StatusOr<ops::BuiltOp> op = ops::ApplyEpilogue("sigmoid", *mm);
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("sigmoid: dtype=int32 is not supported"));
  // relu works on integers.
  EXPECT_TRUE(ops::ApplyEpilogue("relu", *mm).ok());
}

TEST(OpsEpilogueTest, UnknownEpilogueListsTheValidOnes) {
  absl::StatusOr<ops::BuiltOp> mm = ops::Matmul({.M = 2, .N = 2, .K = 2});
  ASSERT_TRUE(mm.ok());
  absl::StatusOr<ops::BuiltOp> op = ops::ApplyEpilogue("swish", *mm);
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("unknown epilogue 'swish'; valid epilogues: bias, add"));
}

TEST(OpsElementwiseTest, ReluAndAddTakeDimensionsInTheFixedOrder) {
  Workload r = optest::MustParse("relu:W=56,H=56,C=64,N=1");
  EXPECT_THAT(optest::FindOp(*r.dag, "relu")->shape, ElementsAre(1, 64, 56, 56));
  EXPECT_EQ(r.spec, "relu:C=64,H=56,N=1,W=56");
  Workload a = optest::MustParse("add:N=256,M=128");
  EXPECT_THAT(optest::FindOp(*a.dag, "add")->shape, ElementsAre(128, 256));
  EXPECT_TRUE(a.dag->analysis(a.dag->IndexOf(optest::FindOp(*a.dag, "add").get())).is_elementwise);
  // bias follows the C dimension when there is one.
  Workload b = optest::MustParse("relu+bias:N=2,C=3,H=4,W=5");
  EXPECT_THAT(optest::FindOp(*b.dag, "bias")->shape, ElementsAre(3));
}

TEST(OpsElementwiseTest, AddComputesTheSum) {
  Workload w = optest::MustParse("add:M=3,N=4,dtype=int32");
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(out[0].GetInt(i), in[0].GetInt(i) + in[1].GetInt(i));
  EXPECT_DOUBLE_EQ(w.dag->flops(), 12);
}

}  // namespace
}  // namespace tuneforge::te
