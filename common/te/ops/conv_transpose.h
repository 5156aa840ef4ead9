// Transposed 2-d convolution (the gradient of conv2d with respect to its
// input), laid out like PyTorch's ConvTranspose2d: data [N, C, H, W], weights
// IOHW = [C, K, R, S], output [N, K, OH, OW] with
//   OH = (H - 1)*stride - 2*pad + R + output_padding.
// Built per output phase, without the zero-inserted input: output position
// o (t = o + pad) takes input t // stride - j through kernel tap
// t % stride + stride*j, so the reduction walks ceil(R / stride) taps per
// dimension, not R (a stride-2 layer does a quarter of the multiply-adds):
//   conv2d_transpose[n, k, oh, ow] = sum(select(inside, data[n, rc, ih, iw]
//                                        * kernel[rc, k, ty, tx], 0), rc: C, ry, rx)
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"
#include "common/te/ops/op_inputs.h"

namespace tuneforge::te::ops {

struct Conv2dTransposeParams {
  int64_t N = 0, C = 0, H = 0, W = 0;  // data [N, C, H, W]
  int64_t K = 0, R = 0, S = 0;         // kernel [C, K, R, S]
  int64_t stride = 1, pad = 0, output_padding = 0;
  DType dtype = DType::Float32();
};
// inputs (op_inputs.h): data, kernel.
absl::StatusOr<BuiltOp> Conv2dTranspose(const Conv2dTransposeParams& p, const OpInputs& inputs = {});

}  // namespace tuneforge::te::ops
