// What one launch of a CUDA kernel may ask of the GPU, checked before NVRTC
// compiles it: a kernel over the limits fails to launch, and a schedule
// written by hand gets an error that says which limit and by how much.
#pragma once

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "common/codegen/cuda/cuda_source.h"

namespace tuneforge::codegen {

struct GpuLimits {
  int64_t max_threads_per_block = 1024;
  std::array<int64_t, 3> max_block = {1024, 1024, 64};
  std::array<int64_t, 3> max_grid = {2147483647, 65535, 65535};
  int64_t max_shared_bytes = 48 * 1024;  // static shared memory per block
  int64_t max_registers_per_thread = 255;
  int64_t registers_per_block = 65536;
};
// The defaults are those of sm_80 (A100) and sm_90 (H100) for static shared
// memory; a probed GPU reports its own.

// Registers a thread of `kernel` needs at least: its local arrays (kept in
// registers when indexed by constants) plus the index arithmetic around them.
int64_t EstimatedRegistersPerThread(const CudaKernel& kernel);

// OK, or InvalidArgument naming the limit, the kernel's value and the fix.
absl::Status CheckLaunchLimits(const CudaKernel& kernel, const GpuLimits& limits);
// Every kernel of the module.
absl::Status CheckLaunchLimits(const CudaModule& module, const GpuLimits& limits);

}  // namespace tuneforge::codegen
