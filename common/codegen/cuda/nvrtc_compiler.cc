#include "common/codegen/cuda/nvrtc_compiler.h"

#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/millis_since.h"

#ifdef TUNEFORGE_HAS_NVRTC
#include <nvrtc.h>
#endif

namespace tuneforge::codegen {

#ifdef TUNEFORGE_HAS_NVRTC

bool CudaCompilerAvailable() { return true; }

absl::StatusOr<PtxModule> CompileCudaToPtx(const std::string& source, const std::string& arch) {
  auto start = std::chrono::steady_clock::now();
  nvrtcProgram program;
  if (nvrtcResult r = nvrtcCreateProgram(&program, source.c_str(), "kernel.cu", 0, nullptr, nullptr);
      r != NVRTC_SUCCESS)
    return absl::InternalError(absl::StrCat("NVRTC could not take the program: ", nvrtcGetErrorString(r)));
  std::string arch_option = absl::StrCat("--gpu-architecture=", arch);
  std::vector<const char*> options = {arch_option.c_str(), "--std=c++17", "-default-device"};
  nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (compiled != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&program);
    if (compiled == NVRTC_ERROR_INVALID_OPTION)
      return absl::InvalidArgumentError(absl::StrCat("NVRTC does not know the architecture '", arch,
                                                     "': use a compute capability such as sm_80 or sm_90"));
    return absl::InvalidArgumentError(absl::StrCat("NVRTC could not compile the kernel for ", arch, ": ", log));
  }
  size_t ptx_size = 0;
  nvrtcGetPTXSize(program, &ptx_size);
  PtxModule out;
  out.ptx.resize(ptx_size);
  nvrtcGetPTX(program, out.ptx.data());
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  nvrtcDestroyProgram(&program);
  out.log = std::move(log);
  out.compile_ms = MillisSince(start);
  return out;
}

#else

bool CudaCompilerAvailable() { return false; }

absl::StatusOr<PtxModule> CompileCudaToPtx(const std::string&, const std::string&) {
  return absl::UnimplementedError(
      "this build of tuneforge has no GPU support: the CUDA toolkit (NVRTC) was not found when it was "
      "configured; install it under /usr/local/cuda and rebuild");
}

#endif

}  // namespace tuneforge::codegen
