// Lowered program -> CUDA C: an `extern "C" __global__` function per root
// loop nest over the program's arguments (and its global temporaries), its
// launch shape read off the loops bound to blockIdx / threadIdx. Compiled by NVRTC (nvrtc_compiler.h), checked
// against the GPU's launch limits (launch_limits.h) before that.
//
// What the lowering hands over (LowerOptions::gpu, vectorize off):
//  - loops bound to blockIdx.{x,y,z} / threadIdx.{x,y,z} become the index
//    itself; several loops on one thread axis share it, a shorter one is
//    guarded (`if (threadIdx.x < 64)`); vthread and unrolled loops are
//    `#pragma unroll` loops, serial loops plain ones;
//  - "local" buffers are per-thread arrays (registers), "shared" ones
//    `__shared__` arrays, with `__syncthreads()` around each statement that
//    writes one (what its readers in other threads wait for, and what a
//    write of the next iteration must wait for);
//  - a stage computed inside the bindings without a scope of its own is
//    per-thread under a threadIdx loop, per-block (shared) under a blockIdx
//    loop only (TVM's inference);
//  - a temporary outside every binding, a parallel (CPU) loop or a vector
//    expression is an error naming it and the fix.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/lower/stmt.h"

namespace tuneforge::codegen {

struct CudaKernel {
  std::string name;  // of the __global__ function
  std::array<int64_t, 3> grid = {1, 1, 1};   // blocks per launch, x y z
  std::array<int64_t, 3> block = {1, 1, 1};  // threads per block, x y z
  int64_t shared_bytes = 0;  // static shared memory of one block
  int64_t local_bytes = 0;   // per-thread arrays (registers, if they fit)

  int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
};

// A stage at root that is not an output: a global buffer the kernels pass
// on to each other, allocated by whoever launches them.
struct CudaTemporary {
  std::string name;
  te::DType dtype;
  int64_t elements = 0;
  int64_t bytes() const { return elements * dtype.element().bytes(); }
};

// One kernel per root stage that is not inlined or computed inside another
// (a program whose stages all end up in one nest is one kernel), launched in
// order. Every kernel takes the program's arguments, then its temporaries.
struct CudaModule {
  std::string source;  // self-contained CUDA C (no includes), every kernel
  std::vector<CudaKernel> kernels;
  std::vector<CudaTemporary> temporaries;
};

absl::StatusOr<CudaModule> EmitCudaSource(const lower::LoweredFunc& func);

}  // namespace tuneforge::codegen
