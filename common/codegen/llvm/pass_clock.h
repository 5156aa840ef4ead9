// Opt-in time per LLVM optimization pass: with TUNEFORGE_PASS_TIMES set in
// the environment, every pass the optimizer runs is timed (its own time:
// the passes it runs inside, like a loop pass manager's, are subtracted,
// and the analyses a pass asks for are counted in it), summed over the
// process, and printed to stderr as a table at exit, slowest first. For
// finding where compile time goes (`tuneforge-bench --compile-split DB`
// rebuilds a record store's programs); LLVM's own -time-passes needs its
// standard instrumentation, which tuneforge's pipeline does not set up.
#pragma once

#include "llvm/IR/PassInstrumentation.h"

namespace tuneforge::codegen {

// Registers the timing callbacks on `callbacks` when the environment asks.
void MaybeTimePasses(llvm::PassInstrumentationCallbacks& callbacks);

}  // namespace tuneforge::codegen
