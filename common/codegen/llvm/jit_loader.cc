// LoadObject: links host objects into this process with ORC. One LLJIT for
// the process; each kernel gets its own JITDylib, removed (code and data
// freed) when its LoadedKernel is destroyed, so a runner can load thousands
// of kernels without growing.
#include <atomic>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"
#include "common/codegen/object_info.h"
#include "common/codegen/llvm/llvm_init.h"
#include "common/codegen/llvm/perf_map.h"
#include "common/runtime/parallel.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace tuneforge::codegen {
namespace {

std::string ErrorText(llvm::Error error) { return llvm::toString(std::move(error)); }

class JitSession {
 public:
  // The process-wide session, created on first use and never destroyed
  // (kernels may still be alive during static destruction).
  static absl::StatusOr<JitSession*> Get() {
    static absl::StatusOr<JitSession*> session = Create();
    return session;
  }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> Load(const CompiledObject& object);

  void Unload(llvm::orc::JITDylib* dylib) {
    if (PerfMapWanted()) return;  // perf_map.h: addresses must stay unique
    // Nothing useful to do with a failure at this point: the code is gone
    // either way and the caller is a destructor.
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(*dylib));
  }

 private:
  static absl::StatusOr<JitSession*> Create();

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::atomic<uint64_t> next_id_{0};
};

class JitKernel final : public LoadedKernel {
 public:
  JitKernel(JitSession* session, llvm::orc::JITDylib* dylib, Fn fn, Fn prepack)
      : session_(session), dylib_(dylib), fn_(fn), prepack_(prepack) {}
  ~JitKernel() override { session_->Unload(dylib_); }
  Fn fn() const override { return fn_; }
  Fn prepack_fn() const override { return prepack_; }

 private:
  JitSession* session_;
  llvm::orc::JITDylib* dylib_;
  Fn fn_;
  Fn prepack_;
};

absl::StatusOr<JitSession*> JitSession::Create() {
  InitializeLlvmTargets();
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    return absl::InternalError(absl::StrCat("cannot start the JIT: ", ErrorText(jit.takeError())));
  }
  auto* session = new JitSession();
  session->jit_ = std::move(*jit);
  llvm::orc::LLJIT& lljit = *session->jit_;
  MaybeWritePerfMap(lljit);
  // The runtime is linked into this binary but not exported dynamically:
  // give its addresses explicitly. libm and libc (expf, memset, ...) come
  // from the process-symbols dylib every new dylib links against.
  auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
  llvm::orc::SymbolMap runtime;
  runtime[lljit.mangleAndIntern("tuneforge_parallel_for")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tuneforge_parallel_for), flags};
  runtime[lljit.mangleAndIntern("tuneforge_alloc")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tuneforge_alloc), flags};
  runtime[lljit.mangleAndIntern("tuneforge_free")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tuneforge_free), flags};
  if (llvm::Error e = lljit.getProcessSymbolsJITDylib()->define(
          llvm::orc::absoluteSymbols(std::move(runtime)))) {
    return absl::InternalError(absl::StrCat("cannot define runtime symbols: ", ErrorText(std::move(e))));
  }
  return session;
}

// Checks that the bytes are a relocatable object for this machine that
// defines `symbol`, before handing them to the linker.
absl::Status CheckObject(const CompiledObject& object) {
  absl::StatusOr<ObjectInfo> info = InspectObject(object.object);
  if (!info.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", object.symbol, "': ", info.status().message()));
  }
  llvm::Triple host(llvm::sys::getProcessTriple());
  if (info->arch != host.getArchName()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "kernel '", object.symbol, "' is compiled for ", info->arch,
        " but this process runs on ", host.getArchName().str(),
        "; load it on a matching worker or compile it for the host target"));
  }
  if (!info->is_relocatable) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", object.symbol, "': not a relocatable object; pass CompileToObject's output"));
  }
  auto defines = [&](const std::string& symbol) {
    for (const std::string& name : info->defined_functions)
      if (name == symbol) return true;
    return false;
  };
  if (!defines(object.symbol))
    return absl::NotFoundError(absl::StrCat("the object does not define a function '",
                                            object.symbol,
                                            "'; CompiledObject::symbol must name the kernel"));
  if (!object.prepack_symbol.empty() && !defines(object.prepack_symbol))
    return absl::NotFoundError(absl::StrCat("the object does not define the prepack function '",
                                            object.prepack_symbol, "' its kernel '", object.symbol,
                                            "' needs; rebuild the kernel"));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> JitSession::Load(const CompiledObject& object) {
  absl::Status checked = CheckObject(object);
  if (!checked.ok()) return checked;
  std::string name = absl::StrCat("tuneforge.kernel.", next_id_++, ".", object.symbol);
  llvm::Expected<llvm::orc::JITDylib&> dylib = jit_->createJITDylib(name);
  if (!dylib) {
    return absl::InternalError(absl::StrCat("cannot create a JIT dylib for kernel '", object.symbol,
                                            "': ", ErrorText(dylib.takeError())));
  }
  auto fail = [&](const char* what, llvm::Error e) {
    Unload(&*dylib);
    return absl::InternalError(absl::StrCat("cannot ", what, " kernel '", object.symbol,
                                            "': ", ErrorText(std::move(e))));
  };
  if (llvm::Error e = jit_->addObjectFile(
          *dylib, llvm::MemoryBuffer::getMemBufferCopy(object.object, object.symbol))) {
    return fail("add the object of", std::move(e));
  }
  // The lookup links the object: unresolved externals are reported here.
  llvm::Expected<llvm::orc::ExecutorAddr> address = jit_->lookup(*dylib, object.symbol);
  if (!address) return fail("link", address.takeError());
  LoadedKernel::Fn prepack = nullptr;
  if (!object.prepack_symbol.empty()) {
    llvm::Expected<llvm::orc::ExecutorAddr> p = jit_->lookup(*dylib, object.prepack_symbol);
    if (!p) return fail("link the prepack function of", p.takeError());
    prepack = p->toPtr<LoadedKernel::Fn>();
  }
  return std::make_unique<JitKernel>(this, &*dylib, address->toPtr<LoadedKernel::Fn>(), prepack);
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadObject(const CompiledObject& object) {
  if (object.shared) return LoadSharedObject(object);
  absl::StatusOr<JitSession*> session = JitSession::Get();
  if (!session.ok()) return session.status();
  return (*session)->Load(object);
}

}  // namespace tuneforge::codegen
