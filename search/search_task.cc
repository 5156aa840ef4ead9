#include "search/search_task.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tuneforge::search {

HardwareParams GpuHardwareParams(int64_t max_threads_per_block) {
  HardwareParams hw;
  hw.gpu = true;
  hw.vector_lanes = 1;  // CUDA C is scalar per thread
  hw.max_innermost_split_factor = 64;
  hw.max_vectorize_extent = 1;
  hw.auto_unroll_configs = {0, 16, 64, 512, 1024};
  hw.max_threads_per_block = max_threads_per_block;
  hw.default_threads_per_block = std::min<int64_t>(256, max_threads_per_block);
  return hw;
}

absl::StatusOr<HardwareParams> HardwareParamsFromDeviceKey(const std::string& device_key) {
  if (absl::StartsWith(device_key, "cuda-sm")) return GpuHardwareParams();
  std::vector<std::string> parts = absl::StrSplit(device_key, '-');
  int cores = 0;
  if (parts.size() < 3 || parts.back().size() < 2 || parts.back().back() != 'c' ||
      !absl::SimpleAtoi(parts.back().substr(0, parts.back().size() - 1), &cores) || cores < 1)
    return absl::InvalidArgumentError(absl::StrCat(
        "device key '", device_key,
        "' is not ARCH-ISA-Nc (e.g. x86_64-avx512-2c); use the key a worker registered with"));
  HardwareParams hw;
  hw.num_cores = cores;
  // ARCH-ISA[-MODEL]-Nc: the architecture holds no '-' (x86_64, aarch64).
  const std::string& isa = parts[1];
  hw.vector_lanes = isa == "avx512" ? 16 : isa == "avx2" ? 8 : 4;  // sse, neon, generic: 128 bits
  hw.vector_registers = isa == "avx512" || isa == "neon" ? 32 : 16;
  return hw;
}

}  // namespace tuneforge::search
