// The LLVM back half of compilation: target machines, the optimization
// pipeline and machine-code emission. One LLVMContext and TargetMachine per
// compile, so compiles can run on several threads at once.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/codegen/target.h"
#include "common/lower/stmt.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Target/TargetMachine.h"

namespace tuneforge::codegen {

// The target's feature string plus the tuning flags every kernel is built
// with (module and function attributes must agree).
std::string LlvmFeatures(const Target& target);

// Errors: an unknown triple (InvalidArgument).
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(const Target& target,
                                                                         int opt_level);

// Validates `func` (validate.h), emits its IR into a new module and verifies it.
absl::StatusOr<std::unique_ptr<llvm::Module>> BuildModule(const lower::LoweredFunc& func,
                                                          const Target& target,
                                                          const llvm::TargetMachine& machine,
                                                          llvm::LLVMContext& context);

// LLVM's new-PM default pipeline for `opt_level` (0..3), less the passes
// that do not pay on kernels, with the loop vectorizer kept off huge loops.
void OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine, int opt_level);

// Object file bytes or assembly text.
absl::StatusOr<std::string> EmitMachineCode(llvm::Module& module, llvm::TargetMachine& machine,
                                            llvm::CodeGenFileType type);

}  // namespace tuneforge::codegen
