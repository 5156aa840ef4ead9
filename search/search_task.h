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
  // SIMD registers of the ISA (32 zmm on AVX-512, 32 on NEON, 16 ymm on
  // AVX2): a CPU program whose accumulators need more is not sampled or bred
  // (annotation/register_tile.cc).
  int vector_registers = 16;
  // The innermost tile of a multi-level tiling stays at most this long (it
  // becomes a vector or unrolled loop); a CPU reduction's is not capped
  // (InnermostLimit, annotation/tile_lengths.h).
  int64_t max_innermost_split_factor = 64;
  // The share of CPU spatial splits drawn with an innermost tile that does
  // not divide the loop (annotation/tile_lengths.h): register tiles such as
  // AVX2's 6 x 16 on 1,024 rows, or whole vectors of 1,000 columns.
  double overrun_tile_share = 0.25;
  // Longest loop (or fused loops) the annotation vectorizes.
  int64_t max_vectorize_extent = 64;
  // Parallel loops are fused until they have this many iterations per core.
  int64_t parallel_iters_per_core = 16;
  // The values the auto-unroll pragma is sampled from.
  std::vector<int64_t> auto_unroll_configs = {0, 16, 64, 512};

  // A GPU (GpuHardwareParams): the sketch rules and annotation of Ansor's
  // GPU search (sketch_rules.h, DefaultGpuSketchRules), within these limits.
  bool gpu = false;
  int64_t max_threads_per_block = 1024;
  // Virtual threads (the middle tiling level, unrolled in each thread).
  int64_t max_vthread_extent = 8;
  // Threads of a stage that is not tiled (element-wise, pooling): the
  // blocks of its fused outputs.
  int64_t default_threads_per_block = 256;
  // Accumulators per thread (the register levels of a tiling: drawn within
  // it, and a mutated program over it is dropped) and the reduction depth
  // of one shared-memory fetch, as tile sizes are drawn.
  int64_t max_local_tile = 64;
  int64_t max_reduction_tile = 64;
  // Static shared memory of a block.
  int64_t max_shared_bytes = 48 * 1024;
};

// Ansor's GPU defaults: innermost tiles of at most 64, auto-unroll from
// {0, 16, 64, 512, 1024}, at most 8 virtual threads.
HardwareParams GpuHardwareParams(int64_t max_threads_per_block = 1024);

// From a worker's device key ("x86_64-avx512-2c", "aarch64-neon-4c", with a
// CPU model "x86_64-avx512-epyc9r14-2c", "aarch64-neon-cortexa72-4c"): the
// ISA gives the vector width, the suffix the cores; a GPU's key
// ("cuda-sm90-h100") gives GpuHardwareParams. Errors name the key.
absl::StatusOr<HardwareParams> HardwareParamsFromDeviceKey(const std::string& device_key);

}  // namespace tuneforge::search
