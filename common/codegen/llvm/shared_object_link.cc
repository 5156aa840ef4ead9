// LLD's ELF driver run in this process, in a private temporary folder:
// LinkSharedObject (a kernel's object as a shared library, for runner-only
// workers) and LinkRelocatable (a kernel's functions, compiled apart, merged
// back into one object).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"
#include "common/codegen/llvm/backend.h"
#include "common/codegen/llvm/llvm_init.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

namespace tuneforge::codegen {

namespace {

// LLD's ELF driver on `inputs` (object bytes) with `flags`, in a private
// temporary folder: the output's bytes, or the linker's message.
absl::StatusOr<std::string> RunLld(const std::vector<const char*>& flags, const std::vector<std::string>& inputs) {
  // LLD keeps global state and resets LLVM's options: one link at a time,
  // and no code generator pipeline built meanwhile.
  std::lock_guard<std::mutex> lock(LlvmOptionsMutex());
  std::string dir = (std::filesystem::temp_directory_path() / "tuneforge-link-XXXXXX").string();
  if (!mkdtemp(dir.data())) return absl::InternalError("cannot make a temporary folder to link in; check TMPDIR");
  const std::string output = dir + "/out";
  std::vector<std::string> paths;
  for (size_t i = 0; i < inputs.size(); ++i) {
    paths.push_back(absl::StrCat(dir, "/in", i, ".o"));
    std::ofstream(paths.back(), std::ios::binary)
        .write(inputs[i].data(), static_cast<std::streamsize>(inputs[i].size()));
  }
  std::vector<const char*> args = {"ld.lld"};
  args.insert(args.end(), flags.begin(), flags.end());
  // LLD resets LLVM's options before parsing these; ours must survive it.
  for (const char* option : LlvmOptions()) {
    args.push_back("-mllvm");
    args.push_back(option);
  }
  args.push_back("-o");
  args.push_back(output.c_str());
  for (const std::string& p : paths) args.push_back(p.c_str());
  std::string linker_output, error_text;
  int code = 1;
  {
    llvm::raw_string_ostream out(linker_output), err(error_text);
    code = lld::lldMain(args, out, err, {{lld::Gnu, &lld::elf::link}}).retCode;
  }
  std::ifstream in(output, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  if (code != 0 || bytes.str().empty()) return absl::InternalError(error_text.empty() ? "no output" : error_text);
  return bytes.str();
}

}  // namespace

absl::StatusOr<CompiledObject> LinkSharedObject(const CompiledObject& object) {
  if (object.shared) return object;
  // Undefined symbols are the runtime's and libm's: the loader resolves
  // them in the runner. No build id or version sections: smaller objects.
  absl::StatusOr<std::string> linked =
      RunLld({"-shared", "--build-id=none", "-z", "noexecstack"}, {object.object});
  if (!linked.ok())
    return absl::InternalError(absl::StrCat("linking kernel '", object.symbol,
                                            "' into a shared object failed: ", linked.status().message()));
  CompiledObject shared = object;
  shared.object = *std::move(linked);
  shared.shared = true;
  return shared;
}

absl::StatusOr<std::string> LinkRelocatable(std::vector<std::string> objects) {
  if (objects.size() == 1) return std::move(objects[0]);
  absl::StatusOr<std::string> merged = RunLld({"-r"}, objects);
  if (!merged.ok())
    return absl::InternalError(
        absl::StrCat("merging the kernel's functions into one object failed: ", merged.status().message()));
  return merged;
}

}  // namespace tuneforge::codegen
