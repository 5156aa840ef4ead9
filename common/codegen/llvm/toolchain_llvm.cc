// The target layer's toolchain in a full build: specs checked against LLVM's
// own CPU and feature tables, the host probed by LLVM (toolchain.h).
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/codegen/llvm/llvm_init.h"
#include "common/codegen/toolchain.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace tuneforge::codegen::toolchain {
namespace {

absl::StatusOr<std::unique_ptr<llvm::MCSubtargetInfo>> Subtarget(const std::string& triple,
                                                                 const std::string& cpu,
                                                                 const std::string& features) {
  InitializeLlvmTargets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return absl::InvalidArgumentError(error);
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(triple, cpu, features));
  if (!sti) return absl::InternalError("LLVM has no subtarget info for " + triple);
  return sti;
}

// Rejects feature names LLVM does not know (it would only warn on stderr).
absl::Status CheckFeatures(const std::string& spec, const llvm::MCSubtargetInfo& sti,
                           const std::string& features) {
  if (features.empty()) return absl::OkStatus();
  for (absl::string_view f : absl::StrSplit(features, ',')) {
    if (f.size() < 2 || (f[0] != '+' && f[0] != '-')) {
      return SpecError(spec, absl::StrCat("feature '", f,
                                          "' must be +NAME or -NAME, e.g. features=+avx2,+fma"));
    }
    bool known = false;
    for (const llvm::SubtargetFeatureKV& kv : sti.getAllProcessorFeatures()) {
      if (f.substr(1) == kv.Key) known = true;
    }
    if (!known) return SpecError(spec, absl::StrCat("unknown CPU feature '", f.substr(1), "'"));
  }
  return absl::OkStatus();
}

}  // namespace

// Derives vector width and host compatibility from the CPU and features.
absl::Status Finish(const std::string& spec, Target& t) {
  // Checked against a generic subtarget first: LLVM prints a warning when
  // it is handed an unknown CPU or feature.
  absl::StatusOr<std::unique_ptr<llvm::MCSubtargetInfo>> sti =
      Subtarget(t.triple, /*cpu=*/"", /*features=*/"");
  if (!sti.ok()) return SpecError(spec, std::string(sti.status().message()));
  if (!(*sti)->isCPUStringValid(t.cpu)) {
    return SpecError(spec, absl::StrCat("unknown CPU '", t.cpu, "' for ",
                                        llvm::Triple(t.triple).getArchName().str(),
                                        t.is_x86() ? " (e.g. znver4, skylake-avx512, x86-64-v3)"
                                                   : " (e.g. generic, cortex-a72, neoverse-n1)"));
  }
  absl::Status features_ok = CheckFeatures(spec, **sti, t.features);
  if (!features_ok.ok()) return features_ok;
  sti = Subtarget(t.triple, t.cpu, t.features);
  if (!sti.ok()) return SpecError(spec, std::string(sti.status().message()));
  if (t.is_x86()) {
    t.vector_bits = (*sti)->checkFeatures("+avx512f") ? 512 : (*sti)->checkFeatures("+avx2") ? 256 : 128;
  } else {
    t.vector_bits = 128;
  }
  // Runnable here when the architecture matches and every feature the code
  // may use is present on this CPU.
  Target host = Target::Host();
  t.is_host = false;
  if (llvm::Triple(t.triple).getArch() == llvm::Triple(host.triple).getArch()) {
    absl::StatusOr<std::unique_ptr<llvm::MCSubtargetInfo>> host_sti =
        Subtarget(host.triple, host.cpu, host.features);
    if (host_sti.ok()) {
      const llvm::FeatureBitset& need = (*sti)->getFeatureBits();
      t.is_host = (need & ~(*host_sti)->getFeatureBits()).none();
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Target> FromTriple(const std::string& spec, const std::string& text) {
  llvm::Triple triple(llvm::Triple::normalize(text));
  if (triple.getArch() != llvm::Triple::x86_64 && triple.getArch() != llvm::Triple::aarch64) {
    return SpecError(spec, absl::StrCat("unsupported architecture '", triple.getArchName().str(),
                                        "'; supported: x86_64, aarch64 (", kSpecForms, ")"));
  }
  if (!triple.isOSBinFormatELF()) {
    return SpecError(spec, absl::StrCat("triple '", text,
                                        "' does not produce ELF objects; use a Linux triple such "
                                        "as x86_64-pc-linux-gnu"));
  }
  Target t;
  t.triple = triple.str();
  t.cpu = triple.getArch() == llvm::Triple::x86_64 ? "x86-64" : "generic";
  t.features = triple.getArch() == llvm::Triple::aarch64 ? "+neon" : "";
  return t;
}

void ProbeHostCpu(Target& t) {
  t.triple = llvm::sys::getProcessTriple();
  t.cpu = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> flags;
  for (const auto& f : features) flags.push_back(absl::StrCat(f.getValue() ? "+" : "-", f.getKey().str()));
  std::sort(flags.begin(), flags.end());  // StringMap order is not stable
  t.features = absl::StrJoin(flags, ",");
  auto has = [&](const char* name) { return features.lookup(name); };
  t.vector_bits = llvm::Triple(t.triple).isX86() ? (has("avx512f") ? 512 : has("avx2") ? 256 : 128) : 128;
}

}  // namespace tuneforge::codegen::toolchain
