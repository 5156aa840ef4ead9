#include "common/codegen/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <type_traits>

#include "absl/strings/str_cat.h"

namespace tuneforge::codegen::cuda {
namespace {

absl::StatusOr<DriverApi> Bind() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return absl::FailedPreconditionError(
        "no NVIDIA driver on this machine (libcuda.so.1 cannot be loaded): it cannot run GPU kernels; "
        "install the driver, or run a CPU worker");
  DriverApi api;
  bool missing = false;
  std::string which;
  // The first name the driver exports: newer drivers add _v2 entry points
  // whose old names some later release drops.
  auto bind = [&](auto& fn, const char* name, const char* fallback = nullptr) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn && fallback) fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, fallback));
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
  bind(api.cuGetErrorString, "cuGetErrorString");
  bind(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(api.cuCtxSetCurrent, "cuCtxSetCurrent");
  bind(api.cuCtxSynchronize, "cuCtxSynchronize");
  bind(api.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  bind(api.cuModuleGetFunction, "cuModuleGetFunction");
  bind(api.cuModuleUnload, "cuModuleUnload");
  bind(api.cuMemAlloc, "cuMemAlloc_v2");
  bind(api.cuMemFree, "cuMemFree_v2");
  bind(api.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  bind(api.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  bind(api.cuMemsetD8, "cuMemsetD8_v2");
  bind(api.cuLaunchKernel, "cuLaunchKernel");
  bind(api.cuEventCreate, "cuEventCreate");
  bind(api.cuEventRecord, "cuEventRecord");
  bind(api.cuEventSynchronize, "cuEventSynchronize");
  bind(api.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
  bind(api.cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy");
  if (missing)
    return absl::FailedPreconditionError(
        absl::StrCat("the NVIDIA driver lacks ", which, ": it is too old for tuneforge; update it"));
  if (CUresult r = api.cuInit(0); r != kCudaSuccess)
    return absl::FailedPreconditionError(absl::StrCat(
        "the NVIDIA driver could not start (cuInit: ", api.ErrorName(r), "): no usable GPU on this machine"));
  return api;
}

}  // namespace

std::string DriverApi::ErrorName(CUresult r) const {
  const char* name = nullptr;
  if (cuGetErrorName && cuGetErrorName(r, &name) == kCudaSuccess && name) return absl::StrCat(name, " (", r, ")");
  return absl::StrCat("error ", r);
}

std::string DriverApi::ErrorText(CUresult r) const {
  const char* text = nullptr;
  if (cuGetErrorString && cuGetErrorString(r, &text) == kCudaSuccess && text) return ErrorName(r) + ": " + text;
  return ErrorName(r);
}

absl::StatusOr<const DriverApi*> LoadDriver() {
  static const absl::StatusOr<DriverApi>* driver = new absl::StatusOr<DriverApi>(Bind());
  if (!driver->ok()) return driver->status();
  return &**driver;
}

}  // namespace tuneforge::codegen::cuda
