// Test oracle for lowering: executes a LoweredFunc directly, one vector
// lane at a time, with every buffer access bounds-checked. Shares no code
// with LLVM code generation, so a lowering bug shows up here on its own.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "common/lower/stmt.h"
#include "common/te/ndarray.h"

namespace tuneforge::lower::testing {

// args[i] is the data of func.args[i] (same dtype and shape).
absl::Status RunLoweredFunc(const LoweredFunc& func, std::vector<te::NDArray*> args);

}  // namespace tuneforge::lower::testing
