// One-time registration of the LLVM targets code generation uses.
#pragma once

namespace tuneforge::codegen {

// Registers the X86 and AArch64 targets (info, code generator, MC layer,
// assembly printer). Thread-safe; the work happens once per process.
void InitializeLlvmTargets();

}  // namespace tuneforge::codegen
