#include "common/codegen/cuda/gpu_probe.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/codegen/cuda/cuda_driver.h"

namespace tuneforge::codegen {

std::string GpuModelKeyPart(absl::string_view name) {
  std::string out;
  for (absl::string_view word : absl::StrSplit(name, ' ', absl::SkipEmpty())) {
    std::string w = absl::AsciiStrToLower(word);
    if (w == "nvidia" || w == "geforce" || w == "tesla" || w == "quadro") continue;
    bool digit = false;
    for (char c : w) {
      if (c == '-') break;
      if (std::isalnum(static_cast<unsigned char>(c))) out += c;
      digit = digit || std::isdigit(static_cast<unsigned char>(c));
    }
    if (digit) break;
  }
  return out.substr(0, 24);
}

absl::StatusOr<std::vector<GpuTarget>> ProbeGpus() {
  absl::StatusOr<const cuda::DriverApi*> driver = cuda::LoadDriver();
  if (!driver.ok()) return driver.status();
  const cuda::DriverApi& api = **driver;
  int count = 0;
  if (cuda::CUresult r = api.cuDeviceGetCount(&count); r != 0)
    return absl::FailedPreconditionError(absl::StrCat("the NVIDIA driver cannot count GPUs: ", api.ErrorName(r)));
  if (count == 0) return absl::FailedPreconditionError("the NVIDIA driver found no GPU on this machine");
  std::vector<GpuTarget> gpus;
  for (int i = 0; i < count; ++i) {
    cuda::CUdevice device = 0;
    if (cuda::CUresult r = api.cuDeviceGet(&device, i); r != 0)
      return absl::FailedPreconditionError(absl::StrCat("GPU ", i, ": ", api.ErrorName(r)));
    auto attribute = [&](int which) {
      int v = 0;
      api.cuDeviceGetAttribute(&v, which, device);
      return v;
    };
    char name[256] = {};
    api.cuDeviceGetName(name, sizeof(name) - 1, device);
    size_t memory = 0;
    api.cuDeviceTotalMem(&memory, device);
    GpuTarget t;
    t.sm = attribute(cuda::kComputeCapabilityMajor) * 10 + attribute(cuda::kComputeCapabilityMinor);
    t.name = GpuModelKeyPart(name);
    t.num_sms = attribute(cuda::kMultiprocessorCount);
    t.memory_bytes = static_cast<int64_t>(memory);
    t.limits.max_threads_per_block = attribute(cuda::kMaxThreadsPerBlock);
    t.limits.max_shared_bytes = attribute(cuda::kMaxSharedMemoryPerBlock);
    t.limits.registers_per_block = attribute(cuda::kMaxRegistersPerBlock);
    gpus.push_back(std::move(t));
  }
  return gpus;
}

}  // namespace tuneforge::codegen
