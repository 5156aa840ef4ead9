// Direct convolutions in channels-first layouts: conv1d (NCW / OIW), conv2d
// (NCHW / OIHW) and conv3d (NCDHW / OIDHW), with stride, symmetric zero
// padding, dilation and groups. Padding is its own "pad" stage (omitted when
// pad = 0); the output is `conv1d`, `conv2d` or `conv3d`, channel axis 1.
//
//   conv2d[n, k, oh, ow] = sum(pad[n, g(k)*C/groups + rc, oh*stride + ry*dilation,
//                                  ow*stride + rx*dilation] * kernel[k, rc, ry, rx],
//                              rc: C/groups, ry: R, rx: S)
// with g(k) = k // (K/groups), and OH = (H + 2*pad - dilation*(R-1) - 1) // stride + 1.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"
#include "common/te/ops/op_inputs.h"

namespace tuneforge::te::ops {

struct Conv1dParams {
  int64_t N = 0, C = 0, W = 0;  // data [N, C, W]
  int64_t K = 0, S = 0;         // kernel [K, C/groups, S]
  int64_t stride = 1, pad = 0, dilation = 1, groups = 1;
  DType dtype = DType::Float32();
};
// inputs (op_inputs.h): data, kernel.
absl::StatusOr<BuiltOp> Conv1d(const Conv1dParams& p, const OpInputs& inputs = {});

struct Conv2dParams {
  int64_t N = 0, C = 0, H = 0, W = 0;  // data [N, C, H, W]
  int64_t K = 0, R = 0, S = 0;         // kernel [K, C/groups, R, S]
  int64_t stride = 1, pad = 0, dilation = 1, groups = 1;
  DType dtype = DType::Float32();
};
// inputs (op_inputs.h): data, kernel.
absl::StatusOr<BuiltOp> Conv2d(const Conv2dParams& p, const OpInputs& inputs = {});

struct Conv3dParams {
  int64_t N = 0, C = 0, D = 0, H = 0, W = 0;  // data [N, C, D, H, W]
  int64_t K = 0, T = 0, R = 0, S = 0;         // kernel [K, C/groups, T, R, S]
  int64_t stride = 1, pad = 0, dilation = 1, groups = 1;
  DType dtype = DType::Float32();
};
// inputs (op_inputs.h): data, kernel.
absl::StatusOr<BuiltOp> Conv3d(const Conv3dParams& p, const OpInputs& inputs = {});

}  // namespace tuneforge::te::ops
