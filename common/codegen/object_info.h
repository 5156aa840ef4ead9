// What a compiled object contains, read with LLVM's object-file library:
// for checking objects before loading them (worker) and in tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tuneforge::codegen {

struct ObjectInfo {
  std::string format;  // LLVM's name: "elf64-x86-64", "elf64-littleaarch64"
  std::string arch;    // "x86_64", "aarch64"
  bool is_elf = false;
  bool is_relocatable = false;
  uint16_t elf_machine = 0;  // e_machine: 62 = EM_X86_64, 183 = EM_AARCH64
  std::vector<std::string> defined_functions;  // global and local
  std::vector<std::string> undefined_symbols;  // resolved at link time
};

// Errors: bytes that are not an object file (InvalidArgument).
absl::StatusOr<ObjectInfo> InspectObject(const std::string& bytes);

}  // namespace tuneforge::codegen
