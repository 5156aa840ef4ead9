// What the search knows about the machine it tunes for, and its knobs
// (typed, with Ansor's defaults; converted from a device key or a Target only
// at the edges).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/compute_dag.h"

namespace tuneforge::search {

struct HardwareParams {
  int num_cores = 1;
  int vector_lanes = 8;  // float32 lanes of the widest SIMD register
  // The innermost tile of a multi-level tiling stays at most this long (it
  // becomes a vector or unrolled loop).
  int64_t max_innermost_split_factor = 64;
  // Longest loop (or fused loops) the annotation vectorizes.
  int64_t max_vectorize_extent = 64;
  // Parallel loops are fused until they have this many iterations per core.
  int64_t parallel_iters_per_core = 16;
  // The values the auto-unroll pragma is sampled from.
  std::vector<int64_t> auto_unroll_configs = {0, 16, 64, 512};
};

// From a worker's device key ("x86_64-avx512-2c", "aarch64-neon-4c"): the
// ISA gives the vector width, the suffix the cores. Errors name the key.
absl::StatusOr<HardwareParams> HardwareParamsFromDeviceKey(const std::string& device_key);

}  // namespace tuneforge::search
