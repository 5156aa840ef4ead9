// LinkSharedObject: LLD's ELF driver run in this process on the kernel's
// object, in a private temporary folder. LLD keeps global state, so links
// are serialized (builds happen in builder processes anyway).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

namespace tuneforge::codegen {

absl::StatusOr<CompiledObject> LinkSharedObject(const CompiledObject& object) {
  if (object.shared) return object;
  static std::mutex* link_mu = new std::mutex;
  std::lock_guard<std::mutex> lock(*link_mu);
  std::string dir = (std::filesystem::temp_directory_path() / "tuneforge-link-XXXXXX").string();
  if (!mkdtemp(dir.data()))
    return absl::InternalError("cannot make a temporary folder to link the kernel in; check TMPDIR");
  const std::string input = dir + "/kernel.o", output = dir + "/kernel.so";
  std::string linker_output, error_text;
  int code = 1;
  {
    std::ofstream(input, std::ios::binary).write(object.object.data(),
                                                 static_cast<std::streamsize>(object.object.size()));
    llvm::raw_string_ostream out(linker_output), err(error_text);
    // Undefined symbols are the runtime's and libm's: the loader resolves
    // them in the runner. No build id or version sections: smaller objects.
    std::vector<const char*> args = {"ld.lld", "-shared", "--build-id=none", "-z", "noexecstack",
                                     "-o", output.c_str(), input.c_str()};
    lld::Result result = lld::lldMain(args, out, err, {{lld::Gnu, &lld::elf::link}});
    code = result.retCode;
  }
  std::ifstream in(output, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  if (code != 0 || bytes.str().empty())
    return absl::InternalError(absl::StrCat("linking kernel '", object.symbol, "' into a shared object failed: ",
                                            error_text.empty() ? "no output" : error_text));
  CompiledObject shared = object;
  shared.object = bytes.str();
  shared.shared = true;
  return shared;
}

}  // namespace tuneforge::codegen
