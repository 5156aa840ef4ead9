// Normalisations over matrices data [M, N]:
//
// norm: the matrix 2-norm (Frobenius norm), output shape [1]:
//   sq_sum[i] = sum(data[k0, k1] * data[k0, k1], k0: M, k1: N)      (i: 1)
//   norm[i]   = sqrt(sq_sum[i])
//
// layer_norm: each row normalised to mean 0 and variance 1, then scaled by
// gamma[N] and shifted by beta[N] (epsilon 1e-5, as PyTorch's LayerNorm):
//   row_sum[i]    = sum(data[i, k], k: N)
//   sq_dev_sum[i] = sum((data[i, k] - row_sum[i]*(1/N))^2, k: N)
//   layer_norm[i, j] = (data[i, j] - row_sum[i]*(1/N)) * rsqrt(sq_dev_sum[i]*(1/N) + 1e-5)
//                      * gamma[j] + beta[j]
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"

namespace tuneforge::te::ops {

struct NormParams {
  int64_t M = 0, N = 0;
  DType dtype = DType::Float32();  // float32 or float64
};
absl::StatusOr<BuiltOp> Norm(const NormParams& p);
absl::StatusOr<BuiltOp> LayerNorm(const NormParams& p);

// The epsilon layer_norm adds to the variance.
inline constexpr double kLayerNormEpsilon = 1e-5;

}  // namespace tuneforge::te::ops
