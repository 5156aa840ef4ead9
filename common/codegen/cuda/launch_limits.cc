#include "common/codegen/cuda/launch_limits.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::codegen {
namespace {

// Indices, loop counters and addresses a thread keeps beside its arrays.
constexpr int64_t kBaseRegisters = 24;
constexpr const char* kAxes[] = {"x", "y", "z"};

}  // namespace

int64_t EstimatedRegistersPerThread(const CudaKernel& kernel) {
  return kBaseRegisters + (kernel.local_bytes + 3) / 4;
}

absl::Status CheckLaunchLimits(const CudaKernel& kernel, const GpuLimits& limits) {
  int64_t threads = kernel.threads_per_block();
  if (threads > limits.max_threads_per_block)
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel ", kernel.name, " needs ", threads, " threads per block (", kernel.block[0], " x ",
        kernel.block[1], " x ", kernel.block[2], "); the GPU allows ", limits.max_threads_per_block,
        ": split the loops bound to threadIdx smaller"));
  for (int a = 0; a < 3; ++a) {
    if (kernel.block[a] > limits.max_block[a])
      return absl::InvalidArgumentError(absl::StrCat("kernel ", kernel.name, " binds ", kernel.block[a],
                                                     " threads to threadIdx.", kAxes[a], "; the GPU allows ",
                                                     limits.max_block[a]));
    if (kernel.grid[a] > limits.max_grid[a])
      return absl::InvalidArgumentError(absl::StrCat("kernel ", kernel.name, " binds ", kernel.grid[a],
                                                     " blocks to blockIdx.", kAxes[a], "; the GPU allows ",
                                                     limits.max_grid[a]));
  }
  if (kernel.shared_bytes > limits.max_shared_bytes)
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel ", kernel.name, " needs ", kernel.shared_bytes, " bytes of shared memory per block; the GPU allows ",
        limits.max_shared_bytes, ": compute the shared-memory caches at an inner loop (smaller tiles)"));
  int64_t registers = EstimatedRegistersPerThread(kernel);
  if (registers > limits.max_registers_per_thread)
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel ", kernel.name, " keeps ", kernel.local_bytes, " bytes of local arrays per thread (about ",
        registers, " registers); the GPU allows ", limits.max_registers_per_thread,
        " per thread: make the per-thread tile smaller"));
  if (registers * threads > limits.registers_per_block)
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel ", kernel.name, " needs about ", registers, " registers x ", threads,
        " threads per block; the GPU has ", limits.registers_per_block,
        " per block: fewer threads or a smaller per-thread tile"));
  return absl::OkStatus();
}

absl::Status CheckLaunchLimits(const CudaModule& module, const GpuLimits& limits) {
  for (const CudaKernel& k : module.kernels)
    if (absl::Status s = CheckLaunchLimits(k, limits); !s.ok()) return s;
  return absl::OkStatus();
}

}  // namespace tuneforge::codegen
