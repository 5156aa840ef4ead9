// Target::Host(): what this machine is, probed once per process.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "common/codegen/arm_cpuinfo.h"
#include "common/codegen/target.h"
#include "common/codegen/toolchain.h"

namespace tuneforge::codegen {
namespace {

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "32K", "1024K", "32M" -> bytes; 0 when unreadable.
int64_t ParseCacheSize(absl::string_view text) {
  int64_t scale = 1;
  if (absl::ConsumeSuffix(&text, "K")) scale = 1024;
  else if (absl::ConsumeSuffix(&text, "M")) scale = 1024 * 1024;
  int64_t value = 0;
  return absl::SimpleAtoi(text, &value) ? value * scale : 0;
}

// L1 data, L2 and L3 sizes of cpu0 from sysfs; missing levels keep their defaults.
void ProbeCaches(Target& t) {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index";
  for (int i = 0; i < 16; ++i) {
    std::string prefix = dir + std::to_string(i) + "/";
    std::string level = ReadLine(prefix + "level");
    if (level.empty()) continue;
    std::string type = ReadLine(prefix + "type");
    int64_t bytes = ParseCacheSize(ReadLine(prefix + "size"));
    if (bytes <= 0 || type == "Instruction") continue;
    if (level == "1") t.l1_bytes = bytes;
    if (level == "2") t.l2_bytes = bytes;
    if (level == "3") t.l3_bytes = bytes;
  }
}

Target Probe() {
  Target t;
  toolchain::ProbeHostCpu(t);
  if (t.is_aarch64()) {
    // LLVM says "generic" for a core it does not know, and sees no features
    // under qemu-user: the kernel's own description fills in what it can.
    std::ifstream in("/proc/cpuinfo");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const ArmCpuInfo arm = ParseArmCpuInfo(text);
    if ((t.cpu.empty() || t.cpu == "generic") && !arm.CoreName().empty()) t.cpu = arm.CoreName();
    if (t.features.find("+neon") == std::string::npos)
      t.features = arm.implementer >= 0 ? arm.LlvmFeatures() : "+neon";
  }
  t.num_cores = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  ProbeCaches(t);
  t.is_host = true;
  return t;
}

}  // namespace

Target Target::Host() {
  static const Target host = Probe();
  return host;
}

}  // namespace tuneforge::codegen
