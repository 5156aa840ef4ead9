// Matrix products: matmul, batch_matmul and dense (weights stored [N, K]).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"
#include "common/te/ops/op_inputs.h"

namespace tuneforge::te::ops {

// C[m, n] = sum_k A[m, k] * B[k, n]; row-major A[M, K], B[K, N].
struct MatmulParams {
  int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::Float32();
};
// inputs (op_inputs.h): A, B.
absl::StatusOr<BuiltOp> Matmul(const MatmulParams& p, const OpInputs& inputs = {});

// C[b, m, n] = sum_k A[b, m, k] * B[b, k, n].
struct BatchMatmulParams {
  int64_t B = 0, M = 0, N = 0, K = 0;
  DType dtype = DType::Float32();
};
// inputs (op_inputs.h): A, B.
absl::StatusOr<BuiltOp> BatchMatmul(const BatchMatmulParams& p, const OpInputs& inputs = {});

// dense[m, n] = sum_k data[m, k] * weight[n, k] (a fully connected layer).
struct DenseParams {
  int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::Float32();
};
// inputs (op_inputs.h): data, weight.
absl::StatusOr<BuiltOp> Dense(const DenseParams& p, const OpInputs& inputs = {});

}  // namespace tuneforge::te::ops
