// The compiler entry points in a runner-only build (a board's worker and
// runner, which link no LLVM, LLD or NVRTC): each says so. Shared objects the
// server linked for the board still load (shared_object_loader.cc).
#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"
#include "common/codegen/cuda/nvrtc_compiler.h"

namespace tuneforge::codegen {
namespace {

absl::Status NoCompiler(const char* what) {
  return absl::UnimplementedError(absl::StrCat(
      "this is a runner-only build of tuneforge (no LLVM): it cannot ", what,
      "; its worker runs the shared objects the server builds (--runner-only), or use a full build"));
}

}  // namespace

bool CompilerAvailable() { return false; }

absl::StatusOr<CompiledObject> CompileToObject(const lower::LoweredFunc&, const Target&, const CompileOptions&) {
  return NoCompiler("compile kernels");
}
absl::StatusOr<std::string> EmitLLVMIR(const lower::LoweredFunc&, const Target&, const CompileOptions&) {
  return NoCompiler("emit LLVM IR");
}
absl::StatusOr<std::string> EmitAssembly(const lower::LoweredFunc&, const Target&, const CompileOptions&) {
  return NoCompiler("emit assembly");
}
absl::StatusOr<CompiledObject> LinkSharedObject(const CompiledObject& object) {
  if (object.shared) return object;
  return NoCompiler("link kernels");
}
absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadObject(const CompiledObject& object) {
  if (object.shared) return LoadSharedObject(object);
  return NoCompiler("load relocatable objects (the server sends shared objects to a runner-only worker)");
}
absl::StatusOr<std::unique_ptr<LoadedKernel>> JitCompile(const lower::LoweredFunc&, const CompileOptions&) {
  return NoCompiler("compile kernels");
}

bool CudaCompilerAvailable() { return false; }
absl::StatusOr<PtxModule> CompileCudaToPtx(const std::string&, const std::string&) {
  return NoCompiler("compile CUDA C");
}

}  // namespace tuneforge::codegen
