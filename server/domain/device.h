// A worker's device as its probe describes it. Jobs name devices by key;
// the rest tells the server how to build for a runner-only device.
#pragma once

#include <cstdint>
#include <string>

namespace tuneforge::server {

struct DeviceInfo {
  std::string device_key;  // "x86_64-avx512-epyc-2c", "aarch64-neon-4c", or the user's
  std::string triple;      // LLVM triple
  std::string cpu;         // LLVM CPU name
  std::string features;    // LLVM feature string
  int cores = 0;
  int64_t l1_bytes = 0;
  int64_t l2_bytes = 0;
  int64_t l3_bytes = 0;
  std::string hostname;
  // The worker compiles its own candidates; false for a runner-only board,
  // which gets objects built by the server for its target.
  bool can_build = false;
  // What measures: the CPU, a GPU, or a CPU under emulation (timings
  // meaningless).
  enum class Kind { kCpu, kGpu, kEmulated };
  Kind kind = Kind::kCpu;
};

}  // namespace tuneforge::server
