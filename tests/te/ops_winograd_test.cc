// conv2d_winograd: the same numbers as a direct 3x3 convolution for both
// tile sizes, partial last tiles and no padding included; its transform
// matrices are found as constant matrices, and the axes indexing them are
// what the simplify_const_tensor rule unrolls.
#include "common/te/ops/winograd_conv.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using optest::At;
using optest::InputSlot;

// Runs `spec` and compares every output with the direct convolution of the
// same inputs, written out as loops.
void ExpectMatchesDirectConvolution(const std::string& spec, int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                                    int64_t pad) {
  SCOPED_TRACE(spec);
  Workload wl = optest::MustParse(spec);
  ASSERT_NE(wl.dag, nullptr);
  const std::vector<NDArray> inputs = optest::RandomInputs(*wl.dag, 5);
  const std::vector<NDArray> outputs = optest::Run(*wl.dag, inputs);
  ASSERT_EQ(outputs.size(), 1u);
  const int64_t oh = h + 2 * pad - 2, ow = w + 2 * pad - 2;
  ASSERT_THAT(outputs[0].shape(), ElementsAre(n, k, oh, ow));
  const NDArray& data = inputs[InputSlot(*wl.dag, "data")];
  const NDArray& kernel = inputs[InputSlot(*wl.dag, "kernel")];
  double worst = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t q = 0; q < k; ++q)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double sum = 0;
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t ry = 0; ry < 3; ++ry)
              for (int64_t rx = 0; rx < 3; ++rx) {
                const int64_t iy = y + ry - pad, ix = x + rx - pad;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                sum += At(data, {b, ch, iy, ix}) * At(kernel, {q, ch, ry, rx});
              }
          worst = std::max(worst, std::abs(At(outputs[0], {b, q, y, x}) - sum));
        }
  EXPECT_LT(worst, 1e-4);
}

TEST(OpsWinogradTest, BothTileSizesComputeTheDirectConvolution) {
  // Output 6x7: tile 2 leaves a partial last column of tiles.
  ExpectMatchesDirectConvolution("conv2d_winograd:N=2,C=3,H=6,W=7,K=4,tile=2", 2, 3, 6, 7, 4, 1);
  // Output 7x9 in tiles of 4: partial tiles both ways.
  ExpectMatchesDirectConvolution("conv2d_winograd:N=1,C=2,H=7,W=9,K=3,tile=4", 1, 2, 7, 9, 3, 1);
  // No padding; tile picked (output 8x6: 4 divides the height).
  ExpectMatchesDirectConvolution("conv2d_winograd:N=1,C=2,H=10,W=8,K=2,pad=0", 1, 2, 10, 8, 2, 0);
}

TEST(OpsWinogradTest, TheTransformMatricesAreConstantAndTheirAxesFound) {
  Workload wl = optest::MustParse("conv2d_winograd:N=1,C=4,H=8,W=8,K=4,tile=2");
  ASSERT_NE(wl.dag, nullptr);
  const ComputeDag& dag = *wl.dag;
  auto analysis_of = [&](const std::string& name) -> const OpAnalysis& {
    return dag.analysis(dag.IndexOf(optest::FindOp(dag, name).get()));
  };
  for (const char* matrix : {"winograd_BT", "winograd_G", "winograd_AT"}) {
    EXPECT_TRUE(analysis_of(matrix).is_constant_matrix) << matrix;
    EXPECT_TRUE(analysis_of(matrix).is_strictly_inlinable) << matrix;
  }
  EXPECT_FALSE(analysis_of("bgemm").is_constant_matrix);
  // [eps, nu, p, c] with reduction [r_a, r_b]: all but p and c index B.
  EXPECT_THAT(analysis_of("data_pack").constant_index_axes, ElementsAre(0, 1, 4, 5));
  EXPECT_THAT(analysis_of("kernel_pack").constant_index_axes, ElementsAre(0, 1, 4, 5));
  EXPECT_THAT(analysis_of("inverse").constant_index_axes, ElementsAre(0, 1, 4, 5));
  EXPECT_THAT(analysis_of("bgemm").constant_index_axes, ElementsAre());
  EXPECT_FALSE(analysis_of("input_tile").is_strictly_inlinable);  // it gathers tiles: placed, not inlined
  // The kernel is a constant weight: its transform can be precomputed.
  EXPECT_TRUE(optest::FindOp(dag, "kernel")->constant);
}

TEST(OpsWinogradTest, BadParametersAreClearErrors) {
  absl::StatusOr<ops::BuiltOp> op = ops::WinogradConv2d({.N = 1, .C = 2, .H = 8, .W = 8, .K = 2, .tile = 3});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("tile=3 is not supported; use tile=2 or tile=4"));
  op = ops::WinogradConv2d({.N = 1, .C = 2, .H = 1, .W = 8, .K = 2, .pad = 0});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("smaller than the 3x3 kernel"));
  op = ops::WinogradConv2d({.N = 1, .C = 0, .H = 8, .W = 8, .K = 2});
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(op.status().message(), HasSubstr("C=0 must be positive"));
}

}  // namespace
}  // namespace tuneforge::te
