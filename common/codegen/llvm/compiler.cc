#include "common/codegen/compiler.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/codegen/llvm/backend.h"
#include "common/millis_since.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

namespace tuneforge::codegen {
namespace {

// LLVM reports through its context; the default handler prints warnings and
// remarks to stderr (e.g. "loop not vectorized" for a `vectorize` LLVM could
// not honor: the loop just runs scalar) and ends the process on an error.
// Warnings and remarks are dropped; the first error is kept to be returned.
class QuietDiagnostics : public llvm::DiagnosticHandler {
 public:
  explicit QuietDiagnostics(std::string* first_error) : first_error_(first_error) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    if (info.getSeverity() == llvm::DS_Error && first_error_->empty()) {
      llvm::raw_string_ostream os(*first_error_);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
    }
    return true;
  }

 private:
  std::string* first_error_;
};

// Everything one compile owns; nothing is shared with other threads.
struct Compilation {
  std::unique_ptr<std::string> llvm_error = std::make_unique<std::string>();
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};

absl::StatusOr<Compilation> BuildUnoptimized(const lower::LoweredFunc& func, const Target& target,
                                             const CompileOptions& options) {
  if (options.opt_level < 0 || options.opt_level > 3) {
    return absl::InvalidArgumentError(absl::StrCat("opt_level ", options.opt_level,
                                                   " is out of range; use 0, 1, 2 or 3"));
  }
  Compilation c;
  c.context = std::make_unique<llvm::LLVMContext>();
  c.context->setDiagnosticHandler(std::make_unique<QuietDiagnostics>(c.llvm_error.get()));
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine =
      CreateTargetMachine(target, options.opt_level);
  if (!machine.ok()) return machine.status();
  c.machine = *std::move(machine);
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      BuildModule(func, target, *c.machine, *c.context);
  if (!module.ok()) return module.status();
  c.module = *std::move(module);
  return c;
}

// Text for inspection: each function optimized apart, as CompileToObject
// builds it, then printed (IR) or compiled to assembly.
absl::StatusOr<std::string> PrintFunctions(const lower::LoweredFunc& func, const Target& target,
                                           const CompileOptions& options, bool assembly) {
  absl::StatusOr<Compilation> c = BuildUnoptimized(func, target, options);
  if (!c.ok()) return c.status();
  std::string text;
  for (std::unique_ptr<llvm::Module>& part : SplitIntoFunctions(std::move(c->module))) {
    OptimizeModule(*part, *c->machine, options.opt_level);
    if (!c->llvm_error->empty())
      return absl::InternalError(absl::StrCat("LLVM failed to optimize the kernel: ", *c->llvm_error));
    if (assembly) {
      absl::StatusOr<std::string> code = EmitMachineCode(*part, *c->machine, llvm::CodeGenFileType::AssemblyFile);
      if (!code.ok()) return code.status();
      text += *code;
    } else {
      llvm::raw_string_ostream os(text);
      part->print(os, nullptr);
    }
  }
  return text;
}

}  // namespace

bool CompilerAvailable() { return true; }

absl::StatusOr<CompiledObject> CompileToObject(const lower::LoweredFunc& func, const Target& target,
                                               const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Compilation> c = BuildUnoptimized(func, target, options);
  if (!c.ok()) return c.status();
  CompiledObject result;
  if (absl::Status s = CompileFunctionsApart(std::move(c->module), *c->machine, target.ToString(), options.opt_level,
                                             options.function_cache, *c->llvm_error, result);
      !s.ok())
    return s;
  result.symbol = func.name;
  if (func.prepack) result.prepack_symbol = func.prepack_name();
  result.packed_args = PackedArgsOf(func);
  result.triple = target.triple;
  result.compile_ms = MillisSince(start);
  return result;
}

absl::StatusOr<std::string> EmitLLVMIR(const lower::LoweredFunc& func, const Target& target,
                                       const CompileOptions& options) {
  return PrintFunctions(func, target, options, /*assembly=*/false);
}

absl::StatusOr<std::string> EmitAssembly(const lower::LoweredFunc& func, const Target& target,
                                         const CompileOptions& options) {
  return PrintFunctions(func, target, options, /*assembly=*/true);
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> JitCompile(const lower::LoweredFunc& func,
                                                         const CompileOptions& options) {
  absl::StatusOr<CompiledObject> object = CompileToObject(func, Target::Host(), options);
  if (!object.ok()) return object.status();
  return LoadObject(*object);
}

}  // namespace tuneforge::codegen
