#include "common/te/ops/conv.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using optest::At;
using optest::InputSlot;

// conv2d straight from its definition (NCHW / OIHW, zero padding).
double ReferenceConv2d(const NDArray& data, const NDArray& kernel, const ops::Conv2dParams& p,
                       int64_t n, int64_t k, int64_t oh, int64_t ow) {
  int64_t cg = p.C / p.groups, kg = p.K / p.groups, g = k / kg;
  double sum = 0;
  for (int64_t c = 0; c < cg; ++c)
    for (int64_t r = 0; r < p.R; ++r)
      for (int64_t s = 0; s < p.S; ++s) {
        int64_t h = oh * p.stride + r * p.dilation - p.pad;
        int64_t w = ow * p.stride + s * p.dilation - p.pad;
        if (h < 0 || h >= p.H || w < 0 || w >= p.W) continue;
        sum += At(data, {n, g * cg + c, h, w}) * At(kernel, {k, c, r, s});
      }
  return sum;
}

void ExpectMatchesReference(const ops::Conv2dParams& p) {
  absl::StatusOr<ops::BuiltOp> op = ops::Conv2d(p);
  ASSERT_TRUE(op.ok()) << op.status();
  ComputeDag dag = optest::MustDag({op->output});
  std::vector<NDArray> in = optest::RandomInputs(dag, 7);
  std::vector<NDArray> out = optest::Run(dag, in);
  ASSERT_EQ(out.size(), 1u);
  const NDArray &data = in[InputSlot(dag, "data")], &kernel = in[InputSlot(dag, "kernel")];
  const std::vector<int64_t>& shape = op->output->shape;
  for (int64_t n = 0; n < shape[0]; ++n)
    for (int64_t k = 0; k < shape[1]; ++k)
      for (int64_t oh = 0; oh < shape[2]; ++oh)
        for (int64_t ow = 0; ow < shape[3]; ++ow)
          ASSERT_NEAR(At(out[0], {n, k, oh, ow}), ReferenceConv2d(data, kernel, p, n, k, oh, ow), 1e-5)
              << "at " << n << "," << k << "," << oh << "," << ow;
}

TEST(OpsConvTest, Conv2dStagesNamesAndOutputShape) {
  Workload w = optest::MustParse("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,pad=1");
  EXPECT_THAT(optest::OpNames(*w.dag), ElementsAre("data", "pad", "kernel", "conv2d"));
  Tensor pad = optest::FindOp(*w.dag, "pad");
  EXPECT_EQ(pad->tag, "pad");
  EXPECT_THAT(pad->shape, ElementsAre(1, 3, 10, 10));
  Tensor conv = optest::FindOp(*w.dag, "conv2d");
  EXPECT_EQ(conv->tag, "conv2d");
  EXPECT_THAT(conv->shape, ElementsAre(1, 4, 8, 8));
  EXPECT_THAT(optest::FindOp(*w.dag, "kernel")->shape, ElementsAre(4, 3, 3, 3));
}

TEST(OpsConvTest, NoPadStageWithoutPadding) {
  Workload w = optest::MustParse("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3");
  EXPECT_THAT(optest::OpNames(*w.dag), ElementsAre("data", "kernel", "conv2d"));
  EXPECT_THAT(optest::FindOp(*w.dag, "conv2d")->shape, ElementsAre(1, 4, 6, 6));
}

TEST(OpsConvTest, FlopsFollowTheUsualFormula) {
  // 2 * N * K * OH * OW * C/groups * R * S; the pad stage adds nothing.
  Workload w = optest::MustParse("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1");
  EXPECT_DOUBLE_EQ(w.dag->flops(), 2.0 * 1 * 64 * 56 * 56 * 64 * 3 * 3);
  Workload g = optest::MustParse("conv2d:N=2,C=32,H=14,W=14,K=64,R=3,S=3,stride=2,pad=1,groups=4");
  EXPECT_DOUBLE_EQ(g.dag->flops(), 2.0 * 2 * 64 * 7 * 7 * (32 / 4) * 3 * 3);
}

TEST(OpsConvTest, Conv2dMatchesReference) {
  ExpectMatchesReference({.N = 2, .C = 3, .H = 7, .W = 6, .K = 4, .R = 3, .S = 2, .pad = 1});
}

TEST(OpsConvTest, StridedDilatedConv2dMatchesReference) {
  ExpectMatchesReference(
      {.N = 1, .C = 2, .H = 9, .W = 10, .K = 3, .R = 3, .S = 3, .stride = 2, .pad = 2, .dilation = 2});
}

TEST(OpsConvTest, GroupedConv2dMatchesReference) {
  ExpectMatchesReference(
      {.N = 1, .C = 6, .H = 5, .W = 5, .K = 4, .R = 3, .S = 3, .pad = 1, .groups = 2});
  // groups = C = K: depthwise written as a grouped convolution.
  ExpectMatchesReference({.N = 1, .C = 4, .H = 5, .W = 5, .K = 4, .R = 3, .S = 3, .groups = 4});
}

TEST(OpsConvTest, Conv1dMatchesDefinition) {
  Workload w = optest::MustParse("conv1d:N=2,C=3,W=11,K=4,S=3,stride=2,pad=1,dilation=2");
  Tensor out = optest::FindOp(*w.dag, "conv1d");
  ASSERT_NE(out, nullptr);
  EXPECT_THAT(out->shape, ElementsAre(2, 4, 5));  // (11 + 2 - 4 - 1) / 2 + 1
  EXPECT_THAT(optest::FindOp(*w.dag, "kernel")->shape, ElementsAre(4, 3, 3));
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> res = optest::Run(*w.dag, in);
  ASSERT_EQ(res.size(), 1u);
  const NDArray &data = in[InputSlot(*w.dag, "data")], &kernel = in[InputSlot(*w.dag, "kernel")];
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t k = 0; k < 4; ++k)
      for (int64_t ow = 0; ow < 5; ++ow) {
        double sum = 0;
        for (int64_t c = 0; c < 3; ++c)
          for (int64_t s = 0; s < 3; ++s) {
            int64_t x = ow * 2 + s * 2 - 1;
            if (x >= 0 && x < 11) sum += At(data, {n, c, x}) * At(kernel, {k, c, s});
          }
        EXPECT_NEAR(At(res[0], {n, k, ow}), sum, 1e-5);
      }
}

TEST(OpsConvTest, Conv3dShapesFlopsAndValues) {
  Workload w = optest::MustParse("conv3d:N=1,C=2,D=4,H=5,W=5,K=3,T=2,R=3,S=3,pad=1");
  Tensor out = optest::FindOp(*w.dag, "conv3d");
  ASSERT_NE(out, nullptr);
  EXPECT_THAT(out->shape, ElementsAre(1, 3, 5, 5, 5));
  EXPECT_THAT(optest::FindOp(*w.dag, "kernel")->shape, ElementsAre(3, 2, 2, 3, 3));
  EXPECT_DOUBLE_EQ(w.dag->flops(), 2.0 * 3 * 5 * 5 * 5 * 2 * 2 * 3 * 3);
  std::vector<NDArray> in = optest::RandomInputs(*w.dag);
  std::vector<NDArray> res = optest::Run(*w.dag, in);
  ASSERT_EQ(res.size(), 1u);
  const NDArray &data = in[InputSlot(*w.dag, "data")], &kernel = in[InputSlot(*w.dag, "kernel")];
  // Spot-check a corner and an interior point.
  for (std::vector<int64_t> o : {std::vector<int64_t>{0, 1, 0, 0, 0}, {0, 2, 2, 3, 1}}) {
    double sum = 0;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t t = 0; t < 2; ++t)
        for (int64_t r = 0; r < 3; ++r)
          for (int64_t s = 0; s < 3; ++s) {
            int64_t d = o[2] + t - 1, h = o[3] + r - 1, x = o[4] + s - 1;
            if (d < 0 || d >= 4 || h < 0 || h >= 5 || x < 0 || x >= 5) continue;
            sum += At(data, {0, c, d, h, x}) * At(kernel, {o[1], c, t, r, s});
          }
    EXPECT_NEAR(At(res[0], o), sum, 1e-5);
  }
}

TEST(OpsConvTest, RejectsGroupsThatDoNotDivideChannels) {
  absl::StatusOr<ops::BuiltOp> op =
      ops::Conv2d({.N = 1, .C = 30, .H = 8, .W = 8, .K = 8, .R = 3, .S = 3, .groups = 4});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("conv2d: C=30 is not divisible by groups=4"));
  op = ops::Conv2d({.N = 1, .C = 8, .H = 8, .W = 8, .K = 6, .R = 3, .S = 3, .groups = 4});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("K=6 is not divisible by groups=4"));
}

TEST(OpsConvTest, RejectsKernelLargerThanPaddedInput) {
  absl::StatusOr<ops::BuiltOp> op =
      ops::Conv2d({.N = 1, .C = 1, .H = 4, .W = 8, .K = 1, .R = 7, .S = 3, .pad = 1});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("kernel (R=7) is larger than the padded input (H=4"));
  // Dilation counts: a 3-tap kernel dilated by 3 spans 7.
  op = ops::Conv1d({.N = 1, .C = 1, .W = 6, .K = 1, .S = 3, .dilation = 3});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("S=3 dilated by 3 spans 7"));
}

TEST(OpsConvTest, RejectsNonPositiveAndNegativeValues) {
  struct Case {
    ops::Conv2dParams p;
    const char* message;
  } cases[] = {
      {{.N = 1, .C = 0, .H = 8, .W = 8, .K = 1, .R = 1, .S = 1}, "C=0 must be positive"},
      {{.N = 1, .C = 1, .H = 8, .W = 8, .K = 1, .R = 1, .S = 1, .stride = 0}, "stride=0 must be positive"},
      {{.N = 1, .C = 1, .H = 8, .W = 8, .K = 1, .R = 1, .S = 1, .dilation = -2},
       "dilation=-2 must be positive"},
      {{.N = 1, .C = 1, .H = 8, .W = 8, .K = 1, .R = 1, .S = 1, .pad = -1}, "pad=-1 must not be negative"},
      {{.N = 1, .C = 1, .H = 8, .W = 8, .K = 1, .R = 1, .S = 1, .groups = 0}, "groups=0 must be positive"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ops::BuiltOp> op = ops::Conv2d(c.p);
    ASSERT_FALSE(op.ok()) << c.message;
    EXPECT_THAT(op.status().message(), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace tuneforge::te
