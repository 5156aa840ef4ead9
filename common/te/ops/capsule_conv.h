// Capsule 2-d convolution, the "CAP" benchmark of the Ansor paper (from
// matrix capsules with EM routing): every pixel holds a capsule x capsule
// pose matrix per channel, and the kernel multiplies pose matrices.
// Layouts: data [N, H, W, cap, cap, C], weight [R, S, cap, cap, C, K],
// output [N, OH, OW, cap, cap, K] (channel axis 5):
//   capsule_conv2d[n, oh, ow, ci, cj, k] =
//       sum(pad[n, oh*stride + ry, ow*stride + rx, ci, ck, rc] * weight[ry, rx, ck, cj, rc, k],
//           ry: R, rx: S, ck: cap, rc: C)
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"

namespace tuneforge::te::ops {

struct CapsuleConv2dParams {
  int64_t N = 0, H = 0, W = 0, C = 0;  // data [N, H, W, capsule, capsule, C]
  int64_t K = 0, R = 0, S = 0;         // weight [R, S, capsule, capsule, C, K]
  int64_t stride = 1, pad = 0;
  int64_t capsule = 4;  // side of the pose matrix
  DType dtype = DType::Float32();
};
absl::StatusOr<BuiltOp> CapsuleConv2d(const CapsuleConv2dParams& p);

}  // namespace tuneforge::te::ops
