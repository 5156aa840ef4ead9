// What the target layer asks of the compiler the build has: LLVM
// (llvm/toolchain_llvm.cc) in a full build, or none (no_compiler/) in the
// runner-only build a board's worker and runner link, which checks target
// specs by their text alone and compiles nothing. Internal to codegen/.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/codegen/target.h"

namespace tuneforge::codegen::toolchain {

inline constexpr char kSpecForms[] =
    "use 'host', 'aarch64', 'cuda[:sm_XX]' or TRIPLE[:cpu=NAME][:features=+a,+b][:cores=N]";

inline absl::Status SpecError(const std::string& spec, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("target '", spec, "': ", what));
}

// A target of `triple` (x86_64 or aarch64, ELF) with its generic CPU.
absl::StatusOr<Target> FromTriple(const std::string& spec, const std::string& triple);
// Checks the CPU and features, derives the vector width and whether code
// for it runs on this machine.
absl::Status Finish(const std::string& spec, Target& t);
// This machine's triple, CPU name, features and vector width.
void ProbeHostCpu(Target& t);

}  // namespace tuneforge::codegen::toolchain
