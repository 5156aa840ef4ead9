// The machine code is generated for: triple, CPU, features and the numbers
// the search cares about (cores, vector width, caches).
#pragma once

#include <cstdint>
#include <string>

#include <optional>

#include "absl/status/statusor.h"
#include "common/codegen/cuda/gpu_target.h"

namespace tuneforge::codegen {

struct Target {
  std::string triple;    // "x86_64-pc-linux-gnu", "aarch64-unknown-linux-gnu"
  std::string cpu;       // LLVM CPU name: "znver4", "icelake-server", "cortex-a72", "generic"
  std::string features;  // LLVM feature string: "+avx512f,+fma,..."
  int num_cores = 1;
  int vector_bits = 128;  // widest SIMD register for float math
  int64_t l1_bytes = 32 * 1024;
  int64_t l2_bytes = 1024 * 1024;
  int64_t l3_bytes = 0;
  bool is_host = false;   // code can run in this process
  // Set for an NVIDIA GPU ("cuda:sm_XX"): programs are lowered for the GPU,
  // emitted as CUDA C and compiled to PTX; the CPU fields are unused.
  std::optional<GpuTarget> gpu;

  // Probes this machine (LLVM's host CPU detection, sysconf, sysfs caches).
  static Target Host();
  // "host"; "aarch64" (generic Armv8-A with NEON); "cuda[:sm_XX]"; or
  // "TRIPLE[:cpu=NAME][:features=+a,+b][:cores=N]". Errors name the part.
  static absl::StatusOr<Target> Parse(const std::string& spec);
  static Target Gpu(GpuTarget gpu);

  bool is_x86() const;
  bool is_aarch64() const;
  int vector_lanes(int element_bytes) const { return vector_bits / 8 / element_bytes; }
  // Short identity of the device class: "x86_64-avx512-2c", "aarch64-neon-4c"
  // ("aarch64-sve-64c" where the features have +sve); a GPU's is
  // GpuTarget::device_key() ("cuda-sm90-h100").
  std::string device_key() const;
  // A spec Parse() accepts: "TRIPLE:cpu=NAME[:features=...]:cores=N".
  std::string ToString() const;
};

}  // namespace tuneforge::codegen
