// OpenBLAS single-precision GEMM as a benchmark peer.
#pragma once

#include <string>

namespace tuneforge::bench {

// Seconds per C[M,N] = A[M,K] * B[K,N] (row-major) with `threads` threads.
double TimeOpenBlasSgemm(int m, int n, int k, int threads);
// The kernel family OpenBLAS picked for this CPU ("SkylakeX", "Haswell", ...).
std::string OpenBlasCoreName();

}  // namespace tuneforge::bench
