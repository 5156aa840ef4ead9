// Pooling, softmax, norm and layer_norm against their definitions.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/te/ops/norm.h"
#include "common/te/ops/pool.h"
#include "common/te/ops/softmax.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using optest::At;

TEST(OpsPoolTest, MaxPoolIgnoresPaddingAndTakesTheMaximum) {
  Workload w = optest::MustParse("max_pool2d:N=1,C=2,H=5,W=5,R=3,S=3,stride=2,pad=1");
  EXPECT_THAT(optest::OpNames(*w.dag), ElementsAre("data", "pad", "max_pool2d"));
  std::vector<NDArray> in = optest::RandomInputs(*w.dag, 5);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_THAT(out[0].shape(), ElementsAre(1, 2, 3, 3));
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t oh = 0; oh < 3; ++oh)
      for (int64_t ow = 0; ow < 3; ++ow) {
        double best = -std::numeric_limits<double>::infinity();
        for (int64_t ry = 0; ry < 3; ++ry)
          for (int64_t rx = 0; rx < 3; ++rx) {
            int64_t h = oh * 2 + ry - 1, x = ow * 2 + rx - 1;
            if (h >= 0 && h < 5 && x >= 0 && x < 5) best = std::max(best, At(in[0], {0, c, h, x}));
          }
        EXPECT_EQ(At(out[0], {0, c, oh, ow}), best);
      }
}

TEST(OpsPoolTest, IntegerMaxPoolPadsWithTheLowestValue) {
  // All inputs negative: a zero pad would win; the int32 minimum never does.
  Workload w = optest::MustParse("max_pool2d:N=1,C=1,H=2,W=2,R=2,S=2,pad=1,dtype=int32");
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  for (int64_t i = 0; i < 4; ++i) in[0].SetInt(i, -5 - i);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].GetInt(0), -5);                   // window over data[0,0] only
  EXPECT_EQ(out[0].GetInt(out[0].num_elements() - 1), -8);
}

TEST(OpsPoolTest, AvgPoolCountsPaddingLikePyTorchDefault) {
  Workload w = optest::MustParse("avg_pool2d:N=1,C=1,H=4,W=4,R=2,S=2,stride=2,pad=1");
  EXPECT_THAT(optest::OpNames(*w.dag), ElementsAre("data", "pad", "pool_sum", "avg_pool2d"));
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  in[0].Fill(1.0);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_THAT(out[0].shape(), ElementsAre(1, 1, 3, 3));
  EXPECT_FLOAT_EQ(At(out[0], {0, 0, 0, 0}), 0.25f);  // one real pixel of four
  EXPECT_FLOAT_EQ(At(out[0], {0, 0, 1, 1}), 1.0f);
  EXPECT_FLOAT_EQ(At(out[0], {0, 0, 0, 1}), 0.5f);
}

TEST(OpsPoolTest, RejectsWindowLargerThanInput) {
  absl::StatusOr<ops::BuiltOp> op = ops::MaxPool2d({.N = 1, .C = 1, .H = 2, .W = 8, .R = 3, .S = 3});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("max_pool2d: the kernel (R=3) is larger"));
}

TEST(OpsSoftmaxTest, StagesSumToOneAndMatchDefinition) {
  Workload w = optest::MustParse("softmax:M=3,N=7");
  EXPECT_THAT(optest::OpNames(*w.dag), ElementsAre("data", "row_max", "exp", "exp_sum", "softmax"));
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  for (int64_t i = 0; i < 3; ++i) {
    double denom = 0, total = 0;
    for (int64_t j = 0; j < 7; ++j) denom += std::exp(At(in[0], {i, j}));
    for (int64_t j = 0; j < 7; ++j) {
      EXPECT_NEAR(At(out[0], {i, j}), std::exp(At(in[0], {i, j})) / denom, 1e-6);
      total += At(out[0], {i, j});
    }
    EXPECT_NEAR(total, 1.0, 1e-5);
  }
}

TEST(OpsSoftmaxTest, NeedsAFloatType) {
  absl::StatusOr<ops::BuiltOp> op = ops::Softmax({.M = 2, .N = 2, .dtype = DType::Int32()});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(),
              HasSubstr("softmax: dtype=int32 is not supported; this op needs dtype=float32"));
}

TEST(OpsNormTest, FrobeniusNormHasShapeOne) {
  Workload w = optest::MustParse("norm:M=4,N=6");
  Tensor out = optest::FindOp(*w.dag, "norm");
  ASSERT_NE(out, nullptr);
  EXPECT_THAT(out->shape, ElementsAre(1));
  EXPECT_DOUBLE_EQ(w.dag->flops(), 2.0 * 4 * 6 + 1);
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> res = optest::Run(*w.dag, in);
  ASSERT_EQ(res.size(), 1u);
  double sq = 0;
  for (int64_t i = 0; i < 24; ++i) sq += in[0].GetDouble(i) * in[0].GetDouble(i);
  EXPECT_NEAR(res[0].GetDouble(0), std::sqrt(sq), 1e-5);
}

TEST(OpsNormTest, LayerNormNormalisesEachRow) {
  Workload w = optest::MustParse("layer_norm:M=3,N=8,dtype=float64");
  EXPECT_THAT(optest::OpNames(*w.dag),
              ElementsAre("data", "row_sum", "sq_dev_sum", "gamma", "beta", "layer_norm"));
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> out = optest::Run(*w.dag, in);
  ASSERT_EQ(out.size(), 1u);
  const NDArray& x = in[optest::InputSlot(*w.dag, "data")];
  const NDArray& gamma = in[optest::InputSlot(*w.dag, "gamma")];
  const NDArray& beta = in[optest::InputSlot(*w.dag, "beta")];
  for (int64_t i = 0; i < 3; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < 8; ++j) mean += At(x, {i, j}) / 8;
    for (int64_t j = 0; j < 8; ++j) var += (At(x, {i, j}) - mean) * (At(x, {i, j}) - mean) / 8;
    for (int64_t j = 0; j < 8; ++j) {
      double expected = (At(x, {i, j}) - mean) / std::sqrt(var + ops::kLayerNormEpsilon) *
                            At(gamma, {j}) + At(beta, {j});
      EXPECT_NEAR(At(out[0], {i, j}), expected, 1e-12);
    }
  }
}

}  // namespace
}  // namespace tuneforge::te
