// A CUDA GPU as code generation sees it: the compute capability NVRTC
// compiles for and the launch limits kernels are checked against; a probed
// GPU (a GPU worker) also has a name, multiprocessors and memory.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "common/codegen/cuda/launch_limits.h"

namespace tuneforge::codegen {

// The triple of a GPU program's CompiledObject (its object is PTX).
inline constexpr char kCudaTriple[] = "nvptx64-nvidia-cuda";

struct GpuTarget {
  int sm = 80;               // compute capability x 10: 90 is sm_90
  std::string name = "";     // short model name from a probe ("h100"); empty for a spec
  int num_sms = 0;           // 0 when not probed
  int64_t memory_bytes = 0;  // 0 when not probed
  GpuLimits limits = {};

  // Whether a --target spec names a GPU ("cuda" or "cuda:...").
  static bool IsGpuSpec(const std::string& spec);
  // "cuda" (sm_80) or "cuda:sm_XX"; errors name the part and the fix.
  static absl::StatusOr<GpuTarget> Parse(const std::string& spec);

  std::string arch() const { return "sm_" + std::to_string(sm); }
  // "cuda-sm90-h100" when probed, "cuda-sm90" for a spec.
  std::string device_key() const;
  // A spec Parse() accepts: "cuda:sm_90".
  std::string ToString() const { return "cuda:" + arch(); }
};

}  // namespace tuneforge::codegen
