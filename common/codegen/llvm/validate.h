// Checks that a lowered function is something the CPU code generator can
// compile, before any LLVM IR is built. The emitters then assume a valid
// program and have no error paths of their own.
#pragma once

#include "absl/status/status.h"
#include "common/lower/stmt.h"

namespace tuneforge::codegen {

// InvalidArgument naming the problem and its fix for: TensorRead / Reduce
// nodes (lowering did not finish), GPU or vthread loops, buffers with more
// than one index (not flattened), unknown buffers, unbound variables,
// operand type mismatches and vector lane mismatches.
absl::Status ValidateForCpu(const lower::LoweredFunc& func);

}  // namespace tuneforge::codegen
