// Softmax over the last axis of data [M, N], as four stages so the schedule
// can place each (the max keeps exp from overflowing):
//   row_max[i]   = max(data[i, k], k: N)
//   exp[i, j]    = exp(data[i, j] - row_max[i])
//   exp_sum[i]   = sum(exp[i, k], k: N)
//   softmax[i, j] = exp[i, j] / exp_sum[i]
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"

namespace tuneforge::te::ops {

struct SoftmaxParams {
  int64_t M = 0, N = 0;
  DType dtype = DType::Float32();  // float32 or float64
};
absl::StatusOr<BuiltOp> Softmax(const SoftmaxParams& p);

}  // namespace tuneforge::te::ops
