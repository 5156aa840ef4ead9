// One-time registration of the LLVM targets code generation uses, the
// process-wide LLVM options it sets, and the lock over changing them.
#pragma once

#include <mutex>
#include <vector>

namespace tuneforge::codegen {

// Registers the X86 and AArch64 targets (info, code generator, MC layer,
// assembly printer). Thread-safe; the work happens once per process.
void InitializeLlvmTargets();

// The LLVM command-line options every compile runs with (set by
// InitializeLlvmTargets). LLD's driver resets all of LLVM's options to their
// defaults before it parses its own `-mllvm` ones, so every in-process link
// passes these again (shared_object_link.cc): without them, compiles after
// the first link took half as long again.
const std::vector<const char*>& LlvmOptions();

// Held while LLVM's process-wide options are written or read: over an
// in-process link (which resets them all) and while the code generator's
// pipeline is built for a target whose options differ (object_emit.cc).
std::mutex& LlvmOptionsMutex();

}  // namespace tuneforge::codegen
