// An Arm board as Linux describes it in /proc/cpuinfo: the core's
// implementer and part numbers (which name the core: 0x41/0xd08 is a
// Cortex-A72) and the "Features" line (asimd, sve, asimddp, i8mm, ...).
// LLVM's host detection reads the same file but says "generic" for cores it
// does not know, and under qemu-user it sees the x86 host's file; the worker
// and the device key use this instead where LLVM has nothing.
#pragma once

#include <set>
#include <string>

#include "absl/strings/string_view.h"

namespace tuneforge::codegen {

struct ArmCpuInfo {
  int implementer = -1;  // "CPU implementer" of the first core, -1 when absent
  int part = -1;         // "CPU part"
  int cores = 0;         // "processor" entries
  std::set<std::string> features;  // the kernel's names: "asimd", "sve", "asimddp", "i8mm"

  // "cortex-a72", "neoverse-v1", "a64fx" (LLVM's CPU names); "" when the
  // implementer/part pair is not known here.
  std::string CoreName() const;
  // LLVM target features for what the kernel reports: "+neon" always (asimd
  // is part of Armv8-A), "+sve", "+sve2", "+dotprod", "+i8mm", "+fullfp16",
  // comma-separated in that order.
  std::string LlvmFeatures() const;
  bool has_sve() const { return features.count("sve") > 0; }
};

// Parses the text of /proc/cpuinfo (of an aarch64 kernel; any other text
// gives an ArmCpuInfo with implementer -1).
ArmCpuInfo ParseArmCpuInfo(absl::string_view text);

}  // namespace tuneforge::codegen
