#include "common/codegen/cuda/gpu_target.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tuneforge::codegen {
namespace {

// Volta (sm_70) onwards: what NVRTC of CUDA 12 and 13 still compiles for.
constexpr int kOldestSm = 70;
constexpr int kNewestSm = 120;

}  // namespace

bool GpuTarget::IsGpuSpec(const std::string& spec) {
  return spec == "cuda" || absl::StartsWith(spec, "cuda:");
}

absl::StatusOr<GpuTarget> GpuTarget::Parse(const std::string& spec) {
  GpuTarget t;
  if (spec == "cuda") return t;
  if (!absl::StartsWith(spec, "cuda:"))
    return absl::InvalidArgumentError(absl::StrCat("target '", spec, "' is not a GPU: use cuda or cuda:sm_XX"));
  std::string arch = spec.substr(5);
  int sm = 0;
  if (!absl::StartsWith(arch, "sm_") || !absl::SimpleAtoi(arch.substr(3), &sm) || sm < kOldestSm ||
      sm > kNewestSm)
    return absl::InvalidArgumentError(absl::StrCat("target '", spec, "': '", arch,
                                                   "' is not a compute capability from sm_", kOldestSm,
                                                   " to sm_", kNewestSm, ", e.g. cuda:sm_80 or cuda:sm_90"));
  t.sm = sm;
  return t;
}

std::string GpuTarget::device_key() const {
  std::string key = absl::StrCat("cuda-sm", sm);
  if (!name.empty()) absl::StrAppend(&key, "-", name);
  return key;
}

}  // namespace tuneforge::codegen
