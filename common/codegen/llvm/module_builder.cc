#include "absl/strings/str_cat.h"
#include "common/codegen/llvm/backend.h"
#include "common/codegen/llvm/ir_emitter.h"
#include "common/codegen/llvm/validate.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace tuneforge::codegen {

absl::StatusOr<std::unique_ptr<llvm::Module>> BuildModule(const lower::LoweredFunc& func,
                                                          const Target& target,
                                                          const llvm::TargetMachine& machine,
                                                          llvm::LLVMContext& context) {
  // The prepack function (layout rewrite) is a second kernel over the same
  // arguments in the same object.
  std::vector<lower::LoweredFunc> kernels = {func};
  if (func.prepack) kernels.push_back(func.prepack_func());
  for (const lower::LoweredFunc& k : kernels)
    if (absl::Status valid = ValidateForCpu(k); !valid.ok()) return valid;
  auto module = std::make_unique<llvm::Module>(func.name, context);
  module->setTargetTriple(target.triple);
  module->setDataLayout(machine.createDataLayout());
  for (const lower::LoweredFunc& k : kernels) IrEmitter(*module, target).EmitKernel(k);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*module, &os)) {
    // A bug in the emitter, not in the input (validation passed).
    return absl::InternalError(absl::StrCat("codegen of kernel '", func.name,
                                            "' produced invalid LLVM IR: ", os.str()));
  }
  return module;
}

}  // namespace tuneforge::codegen
