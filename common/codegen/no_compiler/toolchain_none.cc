// The target layer's toolchain in a runner-only build (a board's worker and
// runner, which link no LLVM): specs are checked by their text, and the host
// is probed with cpuid (x86) or from /proc/cpuinfo (Arm: host_probe.cc). The
// server, which compiles for the board, checks the result against LLVM's
// tables.
#include <sys/utsname.h>

#include <string>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/codegen/toolchain.h"

namespace tuneforge::codegen::toolchain {
namespace {

// This x86 CPU's features as LLVM names them, read with cpuid (what LLVM's
// own probe does, and what an emulator answers for the CPU it emulates;
// /proc/cpuinfo would describe the machine under it), with the OS's
// register-state support (xgetbv) for AVX and AVX-512.
std::string X86Features() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return "";
  const unsigned leaf1_c = c;
  unsigned xcr0 = 0;
  if (leaf1_c & (1u << 27)) {  // OSXSAVE
    unsigned hi = 0;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(hi) : "c"(0));
  }
  const bool avx_state = (xcr0 & 0x6) == 0x6, avx512_state = (xcr0 & 0xe6) == 0xe6;
  std::vector<std::string> f;
  auto add = [&](bool present, const char* name) {
    if (present) f.push_back(absl::StrCat("+", name));
  };
  add(leaf1_c & (1u << 20), "sse4.2");
  add(leaf1_c & (1u << 23), "popcnt");
  add(avx_state && (leaf1_c & (1u << 28)), "avx");
  add(avx_state && (leaf1_c & (1u << 12)), "fma");
  add(avx_state && (leaf1_c & (1u << 29)), "f16c");
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    add(avx_state && (b & (1u << 5)), "avx2");
    add(b & (1u << 8), "bmi2");
    add(avx512_state && (b & (1u << 16)), "avx512f");
    add(avx512_state && (b & (1u << 17)), "avx512dq");
    add(avx512_state && (b & (1u << 28)), "avx512cd");
    add(avx512_state && (b & (1u << 30)), "avx512bw");
    add(avx512_state && (b & (1u << 31)), "avx512vl");
    add(avx512_state && (c & (1u << 11)), "avx512vnni");
  }
  return absl::StrJoin(f, ",");
#else
  return "";
#endif
}

}  // namespace

absl::StatusOr<Target> FromTriple(const std::string& spec, const std::string& triple) {
  const std::string arch = triple.substr(0, triple.find('-'));
  if (arch != "x86_64" && arch != "aarch64")
    return SpecError(spec, absl::StrCat("unsupported architecture '", arch, "'; supported: x86_64, aarch64 (",
                                        kSpecForms, ")"));
  Target t;
  t.triple = triple.find('-') == std::string::npos ? arch + "-unknown-linux-gnu" : triple;
  t.cpu = arch == "x86_64" ? "x86-64" : "generic";
  t.features = arch == "aarch64" ? "+neon" : "";
  return t;
}

absl::Status Finish(const std::string& spec, Target& t) {
  for (absl::string_view f : absl::StrSplit(t.features, ',', absl::SkipEmpty()))
    if (f.size() < 2 || (f[0] != '+' && f[0] != '-'))
      return SpecError(spec, absl::StrCat("feature '", f, "' must be +NAME or -NAME, e.g. features=+avx2,+fma"));
  t.vector_bits = !t.is_x86()                                       ? 128
                  : absl::StrContains(t.features, "+avx512f")       ? 512
                  : absl::StrContains(t.features, "+avx2")          ? 256
                                                                    : 128;
  Target host = Target::Host();
  t.is_host = t.triple.substr(0, t.triple.find('-')) == host.triple.substr(0, host.triple.find('-'));
  return absl::OkStatus();
}

void ProbeHostCpu(Target& t) {
  utsname u{};
  uname(&u);
  const std::string arch = u.machine;
  t.triple = arch == "x86_64" ? "x86_64-pc-linux-gnu" : arch + "-unknown-linux-gnu";
  if (arch == "x86_64") {
    t.cpu = "x86-64";
    t.features = X86Features();
    t.vector_bits = absl::StrContains(t.features, "+avx512f") ? 512
                    : absl::StrContains(t.features, "+avx2")  ? 256
                                                              : 128;
  } else {
    t.cpu = "generic";  // the Arm core and features come from /proc/cpuinfo (host_probe.cc)
    t.features = "";
    t.vector_bits = 128;
  }
}

}  // namespace tuneforge::codegen::toolchain
