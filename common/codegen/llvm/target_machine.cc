#include "absl/strings/str_cat.h"
#include "common/codegen/llvm/backend.h"
#include "common/codegen/llvm/llvm_init.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetOptions.h"

namespace tuneforge::codegen {
namespace {

llvm::CodeGenOptLevel CodeGenLevel(int opt_level) {
  switch (opt_level) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 2: return llvm::CodeGenOptLevel::Default;
    default: return llvm::CodeGenOptLevel::Aggressive;
  }
}

}  // namespace

std::string LlvmFeatures(const Target& target) {
  if (!target.is_x86()) return target.features;
  // No AVX2/AVX-512 gathers or scatters: LLVM 19 can give a masked gather the
  // same register as index and destination, which the CPU refuses (SIGILL,
  // seen on Zen 4 with 56-lane guarded loads); scalar loads cost about as
  // much on the CPUs we target.
  return target.features + (target.features.empty() ? "" : ",") + "+prefer-no-gather,+prefer-no-scatter";
}

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const Target& target,
                                                                         int opt_level) {
  InitializeLlvmTargets();
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!llvm_target) {
    return absl::InvalidArgumentError(absl::StrCat("no code generator for triple '", target.triple,
                                                   "' (", error,
                                                   "); supported: x86_64 and aarch64 Linux"));
  }
  // Default options: FP contraction follows the IR's `contract` flags.
  llvm::TargetOptions options;
  // PIC + small code model: the object can be linked anywhere (JITLink adds
  // GOT/PLT stubs for calls into the process).
  std::unique_ptr<llvm::TargetMachine> machine(llvm_target->createTargetMachine(
      target.triple, target.cpu, LlvmFeatures(target), options, llvm::Reloc::PIC_,
      llvm::CodeModel::Small, CodeGenLevel(opt_level)));
  if (!machine) {
    return absl::InternalError(absl::StrCat("LLVM could not create a target machine for '",
                                            target.ToString(), "'"));
  }
  return machine;
}

}  // namespace tuneforge::codegen
