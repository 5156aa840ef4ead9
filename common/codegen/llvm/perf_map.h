// Opt-in symbols for profiling JIT'd kernels with Linux perf: with
// TUNEFORGE_PERF_MAP set in the environment, every function the JIT links
// (the kernel, its outlined parallel tasks, its prepack) is appended to
// /tmp/perf-PID.map, the file `perf report` reads for code without an ELF
// file. Without it, perf shows such samples as bare [JIT] addresses, which
// cannot say which stage of a program the time goes to. Lines are only
// added: code of an unloaded kernel may be reused by a later one, and perf
// then sees both names at one address (profile one program per process).
#pragma once

#include "llvm/ExecutionEngine/Orc/LLJIT.h"

namespace tuneforge::codegen {

// Adds the perf-map plugin to `jit`'s linking layer when the environment
// asks for it (a JIT built on JITLink; otherwise nothing is written).
void MaybeWritePerfMap(llvm::orc::LLJIT& jit);

}  // namespace tuneforge::codegen
