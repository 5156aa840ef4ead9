// Simplifies every expression with the ranges of the enclosing loop
// variables known, drops guards that always hold (and code that never
// runs), and removes loops of extent 1.
#pragma once

#include "common/lower/stmt.h"
#include "common/te/arith/interval.h"

namespace tuneforge::lower {

Stmt SimplifyStmt(const Stmt& body);
// The same inside loops whose variables range over `outer` (a pass that
// rewrites a subtree simplifies it where it stands).
Stmt SimplifyStmt(const Stmt& body, const te::arith::VarBounds& outer);

}  // namespace tuneforge::lower
