// 2-d pooling over NCHW data with an R x S window, stride and symmetric
// padding. Max pooling pads with the lowest value of the dtype; average
// pooling pads with zeros and divides by R*S (padding counted, like
// PyTorch's default count_include_pad=True) in a separate stage:
//   max_pool2d[n, c, oh, ow] = max(pad[n, c, oh*stride + ry, ow*stride + rx], ry: R, rx: S)
//   pool_sum[n, c, oh, ow]   = sum(pad[n, c, oh*stride + ry, ow*stride + rx], ry: R, rx: S)
//   avg_pool2d[n, c, oh, ow] = pool_sum[n, c, oh, ow] / (R*S)
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"

namespace tuneforge::te::ops {

struct Pool2dParams {
  int64_t N = 0, C = 0, H = 0, W = 0;  // data [N, C, H, W]
  int64_t R = 0, S = 0;                // window
  int64_t stride = 1, pad = 0;
  DType dtype = DType::Float32();
};
absl::StatusOr<BuiltOp> MaxPool2d(const Pool2dParams& p);
absl::StatusOr<BuiltOp> AvgPool2d(const Pool2dParams& p);

}  // namespace tuneforge::te::ops
