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

  // "CUDA_ERROR_NO_DEVICE (100)".
  std::string ErrorName(CUresult r) const;
};

// The driver, loaded and initialized once per process; errors say why this
// machine cannot run GPU kernels (no driver, no device).
absl::StatusOr<const DriverApi*> LoadDriver();

}  // namespace tuneforge::codegen::cuda
