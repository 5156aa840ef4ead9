// A program lowered for the GPU (LowerOptions::Gpu()) -> a CompiledObject of
// PTX and its kernels' launch shapes: CUDA C (cuda_source.h), the launch
// limits checked (launch_limits.h), then NVRTC (nvrtc_compiler.h). What a
// GPU worker's builders and the runner's GPU path exchange.
#pragma once

#include "absl/status/statusor.h"
#include "common/codegen/compiler.h"
#include "common/codegen/cuda/gpu_target.h"
#include "common/lower/stmt.h"

namespace tuneforge::codegen {

// Errors: a program CUDA C cannot express (InvalidArgument naming the
// stage), a kernel over `gpu`'s launch limits, NVRTC's log, or a build
// without the CUDA toolkit.
absl::StatusOr<CompiledObject> CompileForGpu(const lower::LoweredFunc& func, const GpuTarget& gpu);

}  // namespace tuneforge::codegen
