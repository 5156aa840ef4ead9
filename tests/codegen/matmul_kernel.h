// A hand-lowered tiled matmul, the shape of code an expert CPU schedule
// lowers to: parallel over row tiles, a register block of accumulators in a
// local temporary, the k loop split with its inner part unrolled, vector
// loads of B and broadcasts of A.
#pragma once

#include <cstdint>

#include "common/lower/stmt.h"

namespace tuneforge::codegen::testing {

struct MatmulTiling {
  int64_t m = 384, n = 512, k = 512;
  int64_t rows = 6;     // register block rows (broadcasts of A)
  int64_t vectors = 4;  // register block columns, in vectors
  int lanes = 16;       // vector lanes (512-bit float vectors)
  int64_t k_unroll = 8; // inner k, unrolled in the IR
  // B laid out as [n / block_cols, k, block_cols] (what a layout-rewriting
  // schedule produces): the k loop then streams contiguous memory.
  bool packed_b = false;
};

// C[m, n] = A[m, k] * B[k, n], all row-major float32 (B packed if asked). Requires m % rows ==
// 0, n % (vectors * lanes) == 0, k % k_unroll == 0.
lower::LoweredFunc TiledMatmul(const MatmulTiling& t, const char* name = "matmul");

// Statements in the function (loops, stores, allocations...).
int64_t CountStatements(const lower::Stmt& s);

}  // namespace tuneforge::codegen::testing
