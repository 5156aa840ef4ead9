// Target specs ("host", "aarch64", "TRIPLE[:cpu=..][:features=..][:cores=N]"),
// checked against LLVM's own CPU and feature tables.
#include "common/codegen/target.h"

#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/codegen/llvm/llvm_init.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace tuneforge::codegen {
namespace {

constexpr char kSpecForms[] =
    "use 'host', 'aarch64', 'cuda[:sm_XX]' or TRIPLE[:cpu=NAME][:features=+a,+b][:cores=N]";

absl::Status SpecError(const std::string& spec, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("target '", spec, "': ", what));
}

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

absl::Status ApplyOption(const std::string& spec, absl::string_view option, Target& t) {
  std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(option, absl::MaxSplits('=', 1));
  if (kv.first == "cpu" && !kv.second.empty()) {
    t.cpu = std::string(kv.second);
  } else if (kv.first == "features") {
    t.features = std::string(kv.second);
  } else if (kv.first == "cores") {
    int cores = 0;
    if (!absl::SimpleAtoi(kv.second, &cores) || cores < 1) {
      return SpecError(spec, absl::StrCat("cores must be a positive integer, got '", kv.second, "'"));
    }
    t.num_cores = cores;
  } else {
    return SpecError(spec, absl::StrCat("unknown option '", option,
                                        "'; options are cpu=NAME, features=+a,+b, cores=N"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Target> Target::Parse(const std::string& spec) {
  if (spec.empty()) return absl::InvalidArgumentError(absl::StrCat("empty target; ", kSpecForms));
  if (GpuTarget::IsGpuSpec(spec)) {
    absl::StatusOr<GpuTarget> gpu = GpuTarget::Parse(spec);
    if (!gpu.ok()) return gpu.status();
    return Gpu(*std::move(gpu));
  }
  std::vector<absl::string_view> parts = absl::StrSplit(spec, ':');
  absl::StatusOr<Target> t;
  if (parts[0] == "host") {
    t = Host();
  } else if (parts[0] == "aarch64") {
    t = FromTriple(spec, "aarch64-unknown-linux-gnu");
  } else if (parts[0].empty()) {
    return SpecError(spec, absl::StrCat("missing triple; ", kSpecForms));
  } else {
    t = FromTriple(spec, std::string(parts[0]));
  }
  if (!t.ok()) return t.status();
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::Status s = ApplyOption(spec, parts[i], *t);
    if (!s.ok()) return s;
  }
  // The plain host probe is already complete and exact.
  if (parts[0] == "host" && parts.size() == 1) return t;
  absl::Status s = Finish(spec, *t);
  if (!s.ok()) return s;
  return t;
}

Target Target::Gpu(GpuTarget gpu) {
  Target t;
  t.triple = kCudaTriple;
  t.cpu = gpu.arch();
  t.vector_bits = 32;  // CUDA C is scalar per thread
  t.gpu = std::move(gpu);
  return t;
}

bool Target::is_x86() const { return llvm::Triple(triple).getArch() == llvm::Triple::x86_64; }
bool Target::is_aarch64() const { return llvm::Triple(triple).getArch() == llvm::Triple::aarch64; }

std::string Target::device_key() const {
  if (gpu) return gpu->device_key();
  std::string isa;
  if (is_x86()) {
    isa = vector_bits >= 512 ? "avx512" : vector_bits >= 256 ? "avx2" : "sse";
  } else if (is_aarch64()) {
    isa = absl::StrContains(features, "+sve") ? "sve" : "neon";
  } else {
    isa = "generic";
  }
  return absl::StrCat(llvm::Triple(triple).getArchName().str(), "-", isa, "-", num_cores, "c");
}

std::string Target::ToString() const {
  if (gpu) return gpu->ToString();
  std::string s = absl::StrCat(triple, ":cpu=", cpu);
  if (!features.empty()) absl::StrAppend(&s, ":features=", features);
  absl::StrAppend(&s, ":cores=", num_cores);
  return s;
}

}  // namespace tuneforge::codegen
