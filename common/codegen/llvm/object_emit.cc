#include "absl/strings/str_cat.h"
#include "common/codegen/llvm/backend.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace tuneforge::codegen {

absl::StatusOr<std::string> EmitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                            llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  // The code generator still runs on the legacy pass manager in LLVM 19.
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr, type)) {
    return absl::InternalError(absl::StrCat("LLVM cannot emit this file type for ",
                                            machine.getTargetTriple().str()));
  }
  passes.run(module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace tuneforge::codegen
