// Loops marked unrolled (by the `unroll` annotation or auto_unroll_max_step)
// are replaced by one copy of the body per iteration, so that accumulator
// buffers get constant indices and code generation keeps them in
// registers. Loops that would produce more than a size limit of statements
// stay loops (code generation asks LLVM to unroll them).
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

Stmt Unroll(const Stmt& body);

}  // namespace tuneforge::lower
