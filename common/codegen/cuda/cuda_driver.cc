#include "common/codegen/cuda/cuda_driver.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace tuneforge::codegen::cuda {
namespace {

constexpr CUresult kSuccess = 0;

absl::StatusOr<DriverApi> Bind() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return absl::FailedPreconditionError(
        "no NVIDIA driver on this machine (libcuda.so.1 cannot be loaded): it cannot run GPU kernels; "
        "install the driver, or run a CPU worker");
  DriverApi api;
  bool missing = false;
  std::string which;
  auto bind = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn) {
      missing = true;
      which = name;
    }
  };
  bind(api.cuInit, "cuInit");
  bind(api.cuDeviceGetCount, "cuDeviceGetCount");
  bind(api.cuDeviceGet, "cuDeviceGet");
  bind(api.cuDeviceGetName, "cuDeviceGetName");
  bind(api.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  bind(api.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  bind(api.cuGetErrorName, "cuGetErrorName");
  if (missing)
    return absl::FailedPreconditionError(
        absl::StrCat("the NVIDIA driver lacks ", which, ": it is too old for tuneforge; update it"));
  if (CUresult r = api.cuInit(0); r != kSuccess)
    return absl::FailedPreconditionError(absl::StrCat(
        "the NVIDIA driver could not start (cuInit: ", api.ErrorName(r), "): no usable GPU on this machine"));
  return api;
}

}  // namespace

std::string DriverApi::ErrorName(CUresult r) const {
  const char* name = nullptr;
  if (cuGetErrorName && cuGetErrorName(r, &name) == kSuccess && name) return absl::StrCat(name, " (", r, ")");
  return absl::StrCat("error ", r);
}

absl::StatusOr<const DriverApi*> LoadDriver() {
  static const absl::StatusOr<DriverApi>* driver = new absl::StatusOr<DriverApi>(Bind());
  if (!driver->ok()) return driver->status();
  return &**driver;
}

}  // namespace tuneforge::codegen::cuda
