// Runs generated CUDA C on the CPU, to check GPU programs' outputs where no
// GPU is: the kernel source is compiled as C++ by the host compiler with a
// prelude that gives it CUDA's built-ins (threadIdx/blockIdx per thread,
// __shared__ arrays shared by the block, __syncthreads a barrier), and each
// block runs as one OS thread per CUDA thread, blocks one after another. So
// cooperative fetches, barriers and guards behave as on a GPU; speed means
// nothing. Test support only.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/codegen/cuda/cuda_source.h"

namespace tuneforge::search::testing {

// Compiles `module` and launches its kernels in order over `args` (device
// pointers are host pointers here) and its temporaries (allocated here).
// Errors carry the compiler's output.
absl::Status EmulateCudaModule(const codegen::CudaModule& module, const std::vector<void*>& args);

}  // namespace tuneforge::search::testing
