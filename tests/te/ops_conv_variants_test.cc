// depthwise_conv2d, conv2d_transpose and capsule_conv2d against their
// definitions written out as plain loops.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/te/ops/capsule_conv.h"
#include "common/te/ops/conv_transpose.h"
#include "common/te/ops/depthwise_conv.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using optest::At;
using optest::InputSlot;

struct Ran {
  ComputeDag dag;
  std::vector<NDArray> inputs;
  std::vector<NDArray> outputs;
  const NDArray& input(const std::string& name) const { return inputs[InputSlot(dag, name)]; }
};

Ran RunSpec(const std::string& spec) {
  Workload w = optest::MustParse(spec);
  Ran r{*w.dag, optest::RandomInputs(*w.dag, 11), {}};
  r.outputs = optest::Run(r.dag, r.inputs);
  EXPECT_EQ(r.outputs.size(), 1u);
  return r;
}

TEST(OpsConvVariantsTest, DepthwiseWithMultiplierMatchesDefinition) {
  Ran r = RunSpec("depthwise_conv2d:N=1,C=3,H=6,W=5,R=3,S=3,stride=2,pad=1,M=2");
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_THAT(r.outputs[0].shape(), ElementsAre(1, 6, 3, 3));
  EXPECT_THAT(r.input("kernel").shape(), ElementsAre(3, 2, 3, 3));
  EXPECT_DOUBLE_EQ(r.dag.flops(), 2.0 * 6 * 3 * 3 * 3 * 3);
  for (int64_t q = 0; q < 6; ++q)
    for (int64_t oh = 0; oh < 3; ++oh)
      for (int64_t ow = 0; ow < 3; ++ow) {
        double sum = 0;
        for (int64_t ry = 0; ry < 3; ++ry)
          for (int64_t rx = 0; rx < 3; ++rx) {
            int64_t h = oh * 2 + ry - 1, w = ow * 2 + rx - 1;
            if (h < 0 || h >= 6 || w < 0 || w >= 5) continue;
            sum += At(r.input("data"), {0, q / 2, h, w}) * At(r.input("kernel"), {q / 2, q % 2, ry, rx});
          }
        ASSERT_NEAR(At(r.outputs[0], {0, q, oh, ow}), sum, 1e-5);
      }
}

TEST(OpsConvVariantsTest, DepthwiseRejectsBadMultiplier) {
  absl::StatusOr<ops::BuiltOp> op =
      ops::DepthwiseConv2d({.N = 1, .C = 3, .H = 6, .W = 5, .R = 3, .S = 3, .M = 0});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("depthwise_conv2d: M=0 must be positive"));
}

// PyTorch's ConvTranspose2d: each input pixel scatters kernel * value.
void ExpectTransposeMatches(const std::string& spec, int64_t C, int64_t K, int64_t H, int64_t W,
                           int64_t R, int64_t S, int64_t stride, int64_t pad, int64_t out_pad) {
  Ran r = RunSpec(spec);
  ASSERT_EQ(r.outputs.size(), 1u);
  int64_t OH = (H - 1) * stride - 2 * pad + R + out_pad, OW = (W - 1) * stride - 2 * pad + S + out_pad;
  ASSERT_THAT(r.outputs[0].shape(), ElementsAre(1, K, OH, OW));
  std::vector<double> expected(K * OH * OW, 0.0);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t i = 0; i < H; ++i)
      for (int64_t j = 0; j < W; ++j)
        for (int64_t k = 0; k < K; ++k)
          for (int64_t ry = 0; ry < R; ++ry)
            for (int64_t rx = 0; rx < S; ++rx) {
              int64_t y = i * stride - pad + ry, x = j * stride - pad + rx;
              if (y < 0 || y >= OH || x < 0 || x >= OW) continue;
              expected[(k * OH + y) * OW + x] +=
                  At(r.input("data"), {0, c, i, j}) * At(r.input("kernel"), {c, k, ry, rx});
            }
  for (int64_t k = 0; k < K; ++k)
    for (int64_t y = 0; y < OH; ++y)
      for (int64_t x = 0; x < OW; ++x)
        ASSERT_NEAR(At(r.outputs[0], {0, k, y, x}), expected[(k * OH + y) * OW + x], 1e-5)
            << spec << " at " << k << "," << y << "," << x;
}

TEST(OpsConvVariantsTest, TransposeMatchesScatterDefinition) {
  ExpectTransposeMatches("conv2d_transpose:N=1,C=2,H=3,W=4,K=3,R=3,S=3", 2, 3, 3, 4, 3, 3, 1, 0, 0);
  ExpectTransposeMatches("conv2d_transpose:N=1,C=2,H=3,W=4,K=3,R=3,S=2,stride=2,pad=1", 2, 3, 3, 4,
                         3, 2, 2, 1, 0);
  ExpectTransposeMatches("conv2d_transpose:N=1,C=1,H=4,W=3,K=2,R=4,S=4,stride=3,pad=1,output_padding=2",
                         1, 2, 4, 3, 4, 4, 3, 1, 2);
  // Padding beyond R-1 crops the output.
  ExpectTransposeMatches("conv2d_transpose:N=1,C=1,H=5,W=5,K=1,R=2,S=2,stride=2,pad=2", 1, 1, 5, 5,
                         2, 2, 2, 2, 0);
  // Odd output extent: the last phase is one row shorter than the first.
  ExpectTransposeMatches("conv2d_transpose:N=1,C=2,H=4,W=3,K=2,R=5,S=3,stride=2,pad=2",
                         2, 2, 4, 3, 5, 3, 2, 2, 0);
}

TEST(OpsConvVariantsTest, TransposeSkipsTheZeroTapsAndHasAnIOHWKernel) {
  Workload w = optest::MustParse("conv2d_transpose:N=1,C=8,H=4,W=4,K=16,R=4,S=4,stride=2,pad=1");
  // No spread-out input stage: data, its padding, kernel, the per-phase sums
  // and the output that interleaves them.
  EXPECT_EQ(w.dag->num_ops(), 5);
  EXPECT_THAT(optest::FindOp(*w.dag, "kernel")->shape, ElementsAre(8, 16, 4, 4));
  EXPECT_THAT(optest::FindOp(*w.dag, "pad")->shape, ElementsAre(1, 8, 6, 6));
  // 2x2 phases of 4x4 positions each, stored phase-major so that a phase's
  // inner loop reads the input contiguously.
  EXPECT_THAT(optest::FindOp(*w.dag, "conv2d_transpose_phases")->shape, ElementsAre(1, 16, 2, 2, 4, 4));
  EXPECT_THAT(optest::FindOp(*w.dag, "conv2d_transpose")->shape, ElementsAre(1, 16, 8, 8));
  // Stride 2: 2x2 taps per output phase instead of 4x4.
  EXPECT_DOUBLE_EQ(w.dag->flops(), 2.0 * 16 * 8 * 8 * 8 * 2 * 2);
}

TEST(OpsConvVariantsTest, TransposeRejectsBadPadding) {
  absl::StatusOr<ops::BuiltOp> op = ops::Conv2dTranspose(
      {.N = 1, .C = 1, .H = 4, .W = 4, .K = 1, .R = 3, .S = 3, .stride = 2, .output_padding = 2});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("output_padding=2 must be smaller than stride=2"));
  op = ops::Conv2dTranspose({.N = 1, .C = 1, .H = 1, .W = 4, .K = 1, .R = 1, .S = 1, .pad = 1});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("leaves no output along H"));
}

TEST(OpsConvVariantsTest, CapsuleConvMatchesDefinition) {
  Ran r = RunSpec("capsule_conv2d:N=1,H=5,W=4,C=2,K=3,R=3,S=3,stride=2,pad=1,capsule=2");
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_THAT(r.input("data").shape(), ElementsAre(1, 5, 4, 2, 2, 2));
  EXPECT_THAT(r.input("weight").shape(), ElementsAre(3, 3, 2, 2, 2, 3));
  EXPECT_THAT(r.outputs[0].shape(), ElementsAre(1, 3, 2, 2, 2, 3));
  EXPECT_DOUBLE_EQ(r.dag.flops(), 2.0 * 3 * 2 * 2 * 2 * 3 * (3 * 3 * 2 * 2));
  for (int64_t oh = 0; oh < 3; ++oh)
    for (int64_t ow = 0; ow < 2; ++ow)
      for (int64_t ci = 0; ci < 2; ++ci)
        for (int64_t cj = 0; cj < 2; ++cj)
          for (int64_t k = 0; k < 3; ++k) {
            double sum = 0;
            for (int64_t ry = 0; ry < 3; ++ry)
              for (int64_t rx = 0; rx < 3; ++rx)
                for (int64_t ck = 0; ck < 2; ++ck)
                  for (int64_t c = 0; c < 2; ++c) {
                    int64_t h = oh * 2 + ry - 1, w = ow * 2 + rx - 1;
                    if (h < 0 || h >= 5 || w < 0 || w >= 4) continue;
                    sum += At(r.input("data"), {0, h, w, ci, ck, c}) *
                           At(r.input("weight"), {ry, rx, ck, cj, c, k});
                  }
            ASSERT_NEAR(At(r.outputs[0], {0, oh, ow, ci, cj, k}), sum, 1e-5);
          }
}

TEST(OpsConvVariantsTest, CapsuleDefaultsToFourByFourPoses) {
  Workload w = optest::MustParse("capsule_conv2d:N=1,H=16,W=16,C=32,K=32,R=3,S=3,stride=2,pad=1");
  EXPECT_THAT(optest::FindOp(*w.dag, "capsule_conv2d")->shape, ElementsAre(1, 8, 8, 4, 4, 32));
  EXPECT_EQ(w.spec, "capsule_conv2d:C=32,H=16,K=32,N=1,R=3,S=3,W=16,pad=1,stride=2");
}

}  // namespace
}  // namespace tuneforge::te
