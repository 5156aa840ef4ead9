// LoadSharedObject: a kernel linked into a shared library (LinkSharedObject)
// loaded with dlopen from an anonymous file. No LLVM: what a board's runner
// uses. Each kernel is its own library, closed when its LoadedKernel goes.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"

namespace tuneforge::codegen {
namespace {

class SharedKernel final : public LoadedKernel {
 public:
  SharedKernel(void* handle, Fn fn, Fn prepack) : handle_(handle), fn_(fn), prepack_(prepack) {}
  ~SharedKernel() override { dlclose(handle_); }
  Fn fn() const override { return fn_; }
  Fn prepack_fn() const override { return prepack_; }

 private:
  void* handle_;
  Fn fn_;
  Fn prepack_;
};

std::string DlError() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadSharedObject(const CompiledObject& object) {
  // An anonymous in-memory file: nothing is left on disk, whatever happens.
  int fd = memfd_create(object.symbol.c_str(), MFD_CLOEXEC);
  if (fd < 0) return absl::InternalError(absl::StrCat("memfd_create for kernel '", object.symbol, "' failed"));
  size_t written = 0;
  while (written < object.object.size()) {
    ssize_t n = write(fd, object.object.data() + written, object.object.size() - written);
    if (n <= 0) {
      close(fd);
      return absl::InternalError(absl::StrCat("writing kernel '", object.symbol, "' to memory failed"));
    }
    written += static_cast<size_t>(n);
  }
  const std::string path = absl::StrCat("/proc/self/fd/", fd);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  close(fd);  // the mapping keeps the contents
  if (!handle)
    return absl::InvalidArgumentError(absl::StrCat("kernel '", object.symbol, "' cannot be loaded: ", DlError(),
                                                   " (a shared object for another machine, or one that needs "
                                                   "symbols this process does not export)"));
  auto fn = reinterpret_cast<LoadedKernel::Fn>(dlsym(handle, object.symbol.c_str()));
  LoadedKernel::Fn prepack = nullptr;
  if (!object.prepack_symbol.empty())
    prepack = reinterpret_cast<LoadedKernel::Fn>(dlsym(handle, object.prepack_symbol.c_str()));
  if (!fn || (!object.prepack_symbol.empty() && !prepack)) {
    dlclose(handle);
    return absl::NotFoundError(absl::StrCat("the shared object does not define '",
                                            fn ? object.prepack_symbol : object.symbol,
                                            "'; rebuild the kernel"));
  }
  return std::make_unique<SharedKernel>(handle, fn, prepack);
}

}  // namespace tuneforge::codegen
