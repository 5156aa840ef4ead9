// The CUDA driver API, loaded at run time (dlopen of libcuda.so.1): a binary
// built with or without the toolkit starts on any machine, and one without
// an NVIDIA driver is told so instead of failing to load. Only what the
// probe and the runner call is bound; the types are the driver's ABI.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace tuneforge::codegen::cuda {

using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;
using CUdeviceptr = unsigned long long;  // NOLINT: the driver's ABI

inline constexpr CUresult kCudaSuccess = 0;

// Options of cuModuleLoadDataEx: where the PTX JIT writes its error log.
enum JitOption : int {
  kJitErrorLogBuffer = 5,
  kJitErrorLogBufferSizeBytes = 6,
};

// Attribute numbers of cuDeviceGetAttribute (stable across driver versions).
enum DeviceAttribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxSharedMemoryPerBlock = 8,
  kMaxRegistersPerBlock = 12,
  kMultiprocessorCount = 16,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
};

struct DriverApi {
  CUresult (*cuInit)(unsigned int) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  // What the runner needs to load PTX, move buffers, launch and time.
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned int, int*, void**) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                             unsigned int, unsigned int, CUstream, void**, void**) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned int) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;

  // "CUDA_ERROR_NO_DEVICE (100)".
  std::string ErrorName(CUresult r) const;
  // "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered".
  std::string ErrorText(CUresult r) const;
};

// The driver, loaded and initialized once per process; errors say why this
// machine cannot run GPU kernels (no driver, no device).
absl::StatusOr<const DriverApi*> LoadDriver();

}  // namespace tuneforge::codegen::cuda
