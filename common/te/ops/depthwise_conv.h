// Depthwise 2-d convolution (NCHW data, kernel [C, M, R, S] with channel
// multiplier M): each input channel c gives M output channels c*M .. c*M+M-1.
//
//   depthwise_conv2d[n, q, oh, ow] = sum(pad[n, q // M, oh*stride + ry*dilation,
//                                            ow*stride + rx*dilation]
//                                        * kernel[q // M, q % M, ry, rx], ry: R, rx: S)
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"
#include "common/te/ops/op_inputs.h"

namespace tuneforge::te::ops {

struct DepthwiseConv2dParams {
  int64_t N = 0, C = 0, H = 0, W = 0;  // data [N, C, H, W]
  int64_t R = 0, S = 0;                // kernel [C, M, R, S]
  int64_t stride = 1, pad = 0, dilation = 1;
  int64_t M = 1;  // channel multiplier: output has C*M channels
  DType dtype = DType::Float32();
};
// inputs (op_inputs.h): data, kernel.
absl::StatusOr<BuiltOp> DepthwiseConv2d(const DepthwiseConv2dParams& p, const OpInputs& inputs = {});

}  // namespace tuneforge::te::ops
