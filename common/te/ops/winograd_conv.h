// conv2d with a 3x3 kernel and stride 1 by Winograd's minimal filtering
// F(m x m, 3 x 3) (Lavin and Gray, 2016): each m x m output tile costs
// (m+2)^2 multiplies per channel pair instead of 9 m^2, through transforms
// by constant matrices (B^T, G, A^T):
//
//   kernel_pack[e][u][c][k] = sum G[e][a] kernel[k][c][a][b] G[u][b]     (constant: precomputed)
//   data_pack[e][u][p][c]   = sum BT[e][a] tile_p[c][a][b] BT[u][b]      (tile p of the padded input)
//   bgemm[e][u][p][k]       = sum_c data_pack[e][u][p][c] kernel_pack[e][u][c][k]
//   inverse[h][w][p][k]     = sum AT[h][a] bgemm[a][b][p][k] AT[w][b]
//   output[n][k][y][x]      = inverse[y % m][x % m][tile of (n, y, x)][k]
//
// The same numbers as `conv2d` with R=S=3, stride 1, dilation 1, groups 1
// (to rounding). The transform matrices are compute ops over their indices
// alone, and each transform sums over their non-zero entries only (a
// condition of its reduction): a schedule that unrolls the axes indexing
// them (ComputeDag's constant_index_axes) folds the conditions, the zero
// terms and the multiplies by one away.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"
#include "common/te/ops/op_inputs.h"

namespace tuneforge::te::ops {

struct WinogradConv2dParams {
  int64_t N = 0, C = 0, H = 0, W = 0;  // data [N, C, H, W]
  int64_t K = 0;                       // kernel [K, C, 3, 3]
  int64_t pad = 1;
  int64_t tile = 0;  // m: 2 or 4; 0 picks 4 where 4 divides the output height, else 2
  DType dtype = DType::Float32();
};
// inputs (op_inputs.h): data, kernel.
absl::StatusOr<BuiltOp> WinogradConv2d(const WinogradConv2dParams& p, const OpInputs& inputs = {});

}  // namespace tuneforge::te::ops
