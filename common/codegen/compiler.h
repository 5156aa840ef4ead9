// Lowered program -> machine code. CPU code goes through LLVM: the kernel is
// emitted as a relocatable object (so it can be built on one machine and run
// on another, or in a sandboxed runner process), and objects for the host can
// be linked into this process and called.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/codegen/cuda/cuda_source.h"
#include "common/codegen/target.h"
#include "common/lower/stmt.h"

namespace tuneforge::codegen {

class FunctionObjectCache;

struct CompileOptions {
  int opt_level = 3;  // 0..3, LLVM's pipeline level
  // Functions of the kernel whose unoptimized IR this cache has seen (for
  // the same target and level) are taken from it, not compiled again; new
  // ones are added (function_object_cache.h). Null: compile every function.
  FunctionObjectCache* function_cache = nullptr;
};

// A compiled kernel: an ELF relocatable object defining `symbol` with the ABI
// `int32_t symbol(void** args)` (see lower::LoweredFunc).
// With layout rewrite (lower::LoweredFunc::prepack) it also defines
// `prepack_symbol`, with the same ABI, and the kernel takes the packed
// buffers after its outputs: a caller allocates `packed_args` and calls the
// prepack function once before the kernel.
struct PackedArg {
  std::string name;
  te::DType dtype;
  std::vector<int64_t> shape;
};

// One function of a kernel as CompileFunctionsApart built it: where a
// candidate's compile time went, function by function (tuneforge-bench
// --compile-split prints it by role: entry point, parallel task, prepack).
struct FunctionBuild {
  std::string name;              // "k", "k.task0", "k_prepack"
  int instructions_before = 0;   // LLVM IR instructions before optimization
  int instructions_after = 0;    // and after (0 when reused)
  double optimize_ms = 0;
  double machine_code_ms = 0;
  bool reused = false;           // taken from the function cache
};

struct CompiledObject {
  std::string symbol;
  std::string object;  // bytes
  std::string triple;
  double compile_ms = 0;  // lowered IR -> object
  // Where compile_ms went on the LLVM path (the rest is building the module):
  // LLVM's optimization pipeline, then instruction selection, register
  // allocation and object emission.
  double optimize_ms = 0;
  double machine_code_ms = 0;
  // The kernel's functions (entry point, parallel tasks, prepack), each
  // optimized and compiled apart or taken from the function cache.
  std::vector<FunctionBuild> function_builds = {};  // in the module's order
  int functions() const { return static_cast<int>(function_builds.size()); }
  int reused_functions() const {
    int n = 0;
    for (const FunctionBuild& f : function_builds) n += f.reused ? 1 : 0;
    return n;
  }
  std::string prepack_symbol = {};         // empty: no constants are packed
  std::vector<PackedArg> packed_args = {};  // the kernel's last arguments
  // `object` is a shared library (LinkSharedObject) rather than a
  // relocatable object: a runner loads it with dlopen, no LLVM needed.
  bool shared = false;
  // A GPU program (triple kCudaTriple): `object` is PTX, these kernels are
  // launched in order over the arguments then the temporaries.
  std::vector<CudaKernel> cuda_kernels = {};
  std::vector<CudaTemporary> cuda_temporaries = {};

  bool is_gpu() const { return !cuda_kernels.empty(); }
};

// Whether this build compiles: false in the runner-only build a board's
// worker and runner link (no LLVM), where every compile says so.
bool CompilerAvailable();

// The buffers at the end of `func.args` that its prepack function fills.
std::vector<PackedArg> PackedArgsOf(const lower::LoweredFunc& func);

absl::StatusOr<CompiledObject> CompileToObject(const lower::LoweredFunc& func, const Target& target,
                                               const CompileOptions& options = {});
// The object linked into a shared library for its triple (LLD's ELF linker,
// in process): what a runner-only worker (a board) loads with dlopen. Its
// runtime calls (tuneforge_parallel_for, libm) resolve against the loading
// process. Errors carry the linker's message.
absl::StatusOr<CompiledObject> LinkSharedObject(const CompiledObject& object);

// The optimized LLVM IR / assembly text, for inspection (`tuneforge show`).
absl::StatusOr<std::string> EmitLLVMIR(const lower::LoweredFunc& func, const Target& target,
                                       const CompileOptions& options = {});
absl::StatusOr<std::string> EmitAssembly(const lower::LoweredFunc& func, const Target& target,
                                         const CompileOptions& options = {});

// A kernel linked into this process. Keeps its code alive.
class LoadedKernel {
 public:
  using Fn = int32_t (*)(void** args);
  virtual ~LoadedKernel() = default;
  virtual Fn fn() const = 0;
  // Null when the object packs no constants (CompiledObject::prepack_symbol).
  virtual Fn prepack_fn() const = 0;
  int32_t operator()(void** args) const { return fn()(args); }
};

// Links a host object into this process (runtime symbols such as the thread
// pool and libm resolve to this process), or dlopens a shared one
// (LoadSharedObject). Errors: wrong triple, bad object, missing symbol.
absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadObject(const CompiledObject& object);

// dlopen of a shared object (CompiledObject::shared) from memory; needs no
// LLVM. The process must export the runtime's symbols (tuneforge-runner
// does: --export-dynamic-symbol=tuneforge_*).
absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadSharedObject(const CompiledObject& object);

// Convenience: compile for the host and load.
absl::StatusOr<std::unique_ptr<LoadedKernel>> JitCompile(const lower::LoweredFunc& func,
                                                         const CompileOptions& options = {});

}  // namespace tuneforge::codegen
