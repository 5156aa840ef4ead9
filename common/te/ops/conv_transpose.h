// Transposed 2-d convolution (the gradient of conv2d with respect to its
// input), laid out like PyTorch's ConvTranspose2d: data [N, C, H, W], weights
// IOHW = [C, K, R, S], output [N, K, OH, OW] with
//   OH = (H - 1)*stride - 2*pad + R + output_padding.
// Built as a direct convolution: a "pad" stage spreads the input out by the
// stride and pads it by R-1-pad (and output_padding at the end), then
//   conv2d_transpose[n, k, oh, ow] = sum(pad[n, rc, oh + ry, ow + rx]
//                                        * kernel[rc, k, R-1-ry, S-1-rx], rc: C, ry: R, rx: S)
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"

namespace tuneforge::te::ops {

struct Conv2dTransposeParams {
  int64_t N = 0, C = 0, H = 0, W = 0;  // data [N, C, H, W]
  int64_t K = 0, R = 0, S = 0;         // kernel [C, K, R, S]
  int64_t stride = 1, pad = 0, output_padding = 0;
  DType dtype = DType::Float32();
};
absl::StatusOr<BuiltOp> Conv2dTranspose(const Conv2dTransposeParams& p);

}  // namespace tuneforge::te::ops
