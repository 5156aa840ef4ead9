#include <mutex>

#include "absl/strings/str_cat.h"
#include "common/codegen/llvm/backend.h"
#include "common/codegen/llvm/llvm_init.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace tuneforge::codegen {
namespace {

// Loop strength reduction rewrites a loop's addresses around new induction
// variables. The lowered loops index with an induction variable times a
// constant stride, which x86 addressing folds as well: without the pass
// (and its loop canonicalization) 7x7 stem candidates spent a third less
// time in machine code (a store's compile p50 132 -> 112 ms), and 6 top + 6
// random records each of matmul, conv 3x3, Winograd, strided depthwise and
// stem stores ran as fast (docs/architecture.md, Decisions). AArch64 keeps
// it: its addressing cannot add a scaled index and an offset, and no board
// here times its kernels.
//
// LLVM reads the switch (a process-wide option) only while it builds the
// code generator's pipeline, so it is set per target under the options' lock
// around that: compiles for both targets can share a process, and an
// in-process link (which resets every option) cannot come between.
bool LoopStrengthReductionPays(const llvm::Triple& triple) { return !triple.isX86(); }

void SetLoopStrengthReduction(bool enabled) {
  llvm::cl::Option* option = llvm::cl::getRegisteredOptions().lookup("disable-lsr");
  if (option) static_cast<llvm::cl::opt<bool>*>(option)->setValue(!enabled);
}

}  // namespace

absl::StatusOr<std::string> EmitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                            llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  // The code generator still runs on the legacy pass manager in LLVM 19.
  llvm::legacy::PassManager passes;
  bool cannot_emit;
  {
    std::lock_guard<std::mutex> lock(LlvmOptionsMutex());
    SetLoopStrengthReduction(LoopStrengthReductionPays(machine.getTargetTriple()));
    cannot_emit = machine.addPassesToEmitFile(passes, os, nullptr, type);
  }
  if (cannot_emit) {
    return absl::InternalError(absl::StrCat("LLVM cannot emit this file type for ",
                                            machine.getTargetTriple().str()));
  }
  passes.run(module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace tuneforge::codegen
