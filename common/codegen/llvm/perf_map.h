// Opt-in symbols for profiling JIT'd kernels with Linux perf: with
// TUNEFORGE_PERF_MAP set in the environment, every function the JIT links
// (the kernel, its outlined parallel tasks, its prepack) is appended to
// /tmp/perf-PID.map, the file `perf report` reads for code without an ELF
// file. Without it, perf shows such samples as bare [JIT] addresses, which
// cannot say which stage of a program the time goes to. The map has no
// times, so while it is written no kernel's code is freed: addresses are
// never reused (a measure loads a reference program first, and its code
// would otherwise be named by the next kernel's functions). A profiling
// process therefore grows with every kernel it loads.
#pragma once

#include "llvm/ExecutionEngine/Orc/LLJIT.h"

namespace tuneforge::codegen {

// Adds the perf-map plugin to `jit`'s linking layer when the environment
// asks for it (a JIT built on JITLink; otherwise nothing is written).
void MaybeWritePerfMap(llvm::orc::LLJIT& jit);

// Whether the environment asks for the map (then kernels stay loaded).
bool PerfMapWanted();

}  // namespace tuneforge::codegen
