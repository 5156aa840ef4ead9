// The LLVM back half of compilation: target machines, the optimization
// pipeline and machine-code emission. One LLVMContext and TargetMachine per
// compile, so compiles can run on several threads at once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/compiler.h"
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

class FunctionObjectCache;

// The module's defined functions, one module each (in the same context; the
// original is consumed), internal ones made hidden globals so the parts can
// name each other. A module with one function, or with global variables,
// comes back whole.
std::vector<std::unique_ptr<llvm::Module>> SplitIntoFunctions(std::unique_ptr<llvm::Module> module);

// SplitIntoFunctions, then each part optimized and compiled, or taken from
// `cache` (may be null) by the digest of its unoptimized IR, `target_key`
// and `opt_level`; the parts' objects merged into one relocatable object.
// Fills `out`'s object, optimize_ms, machine_code_ms (the merge included)
// and function_builds. `llvm_error` is the context's first error
// (checked after each step).
absl::Status CompileFunctionsApart(std::unique_ptr<llvm::Module> module, llvm::TargetMachine& machine,
                                   const std::string& target_key, int opt_level, FunctionObjectCache* cache,
                                   const std::string& llvm_error, CompiledObject& out);

// Relocatable objects merged into one (LLD's `-r`, in process); one object
// comes back as it is. Errors carry the linker's message.
absl::StatusOr<std::string> LinkRelocatable(std::vector<std::string> objects);

}  // namespace tuneforge::codegen
