// Readable text of a lowered program (`tuneforge show`).
#pragma once

#include <string>

#include "common/lower/stmt.h"

namespace tuneforge::lower {

// Two-space indentation, one statement per line:
//   parallel (i.0, 0, 16) {
//     C_local[0] = 0.0
//     ...
std::string ToString(const Stmt& stmt);
// Signature (arguments with shapes), then the body.
std::string ToString(const LoweredFunc& func);

}  // namespace tuneforge::lower
