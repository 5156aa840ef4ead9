// CUDA C -> PTX with NVRTC, no GPU needed. Built only where CMake found the
// CUDA toolkit; elsewhere every call says the build has no GPU support.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace tuneforge::codegen {

// Whether this build links NVRTC.
bool CudaCompilerAvailable();

struct PtxModule {
  std::string ptx;
  std::string log;  // NVRTC's warnings, if any
  double compile_ms = 0;
};

// `arch` is a compute capability as "sm_90". Errors carry NVRTC's log.
absl::StatusOr<PtxModule> CompileCudaToPtx(const std::string& source, const std::string& arch);

}  // namespace tuneforge::codegen
