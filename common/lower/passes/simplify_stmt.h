// Simplifies every expression with the ranges of the enclosing loop
// variables known, drops guards that always hold (and code that never
// runs), and removes loops of extent 1.
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

Stmt SimplifyStmt(const Stmt& body);

}  // namespace tuneforge::lower
