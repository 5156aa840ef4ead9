// Transposed 2-d convolution (the gradient of conv2d with respect to its
// input), laid out like PyTorch's ConvTranspose2d: data [N, C, H, W], weights
// IOHW = [C, K, R, S], output [N, K, OH, OW] with
//   OH = (H - 1)*stride - 2*pad + R + output_padding.
// Built per output phase, without the zero-inserted input: output position
// o = stride*o2 + phase (t = o + pad) takes input t // stride - j through
// kernel tap t % stride + stride*j, so the reduction walks ceil(R / stride)
// taps per dimension, not R (a stride-2 layer does a quarter of the
// multiply-adds). Each phase is its own plain convolution over the padded
// input, and an injective stage interleaves the phases:
//   conv2d_transpose_phases[n, k, ph, pw, oh2, ow2] =
//       sum(pad[n, rc, oh2 + (ph + pad) // stride - ry + .., ..]
//           * kernel[rc, k, (ph + pad) % stride + stride*ry, ..], rc: C, ry, rx)
//   conv2d_transpose[n, k, oh, ow] = conv2d_transpose_phases[n, k, oh % stride,
//       ow % stride, oh // stride, ow // stride]
// so that a schedule vectorizes a phase along ow2 over contiguous input with
// one kernel tap (taps past R, when stride does not divide R, are skipped by
// a select). Stride 1 is a single phase: the sum is the output.
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
