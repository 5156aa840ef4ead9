#include "common/codegen/cuda/cuda_compile.h"

#include <chrono>

#include "common/codegen/cuda/launch_limits.h"
#include "common/codegen/cuda/nvrtc_compiler.h"
#include "common/millis_since.h"

namespace tuneforge::codegen {

absl::StatusOr<CompiledObject> CompileForGpu(const lower::LoweredFunc& func, const GpuTarget& gpu) {
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<CudaModule> module = EmitCudaSource(func);
  if (!module.ok()) return module.status();
  if (absl::Status s = CheckLaunchLimits(*module, gpu.limits); !s.ok()) return s;
  absl::StatusOr<PtxModule> ptx = CompileCudaToPtx(module->source, gpu.arch());
  if (!ptx.ok()) return ptx.status();
  CompiledObject out;
  out.symbol = func.name;
  out.object = std::move(ptx->ptx);
  out.triple = kCudaTriple;
  out.cuda_kernels = std::move(module->kernels);
  out.cuda_temporaries = std::move(module->temporaries);
  out.compile_ms = MillisSince(start);
  return out;
}

}  // namespace tuneforge::codegen
