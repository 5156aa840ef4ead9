// Ansor's auto_unroll_max_step pragma: inside a stage's nest, every serial
// loop whose total number of executed statements (its "step count") is at
// most max_step is marked for unrolling. Vectorized loops count once: they
// become single vector statements. A marked nest whose copies would exceed a
// size budget (statements and expression nodes) keeps its marked reduction
// loops that no border test reads (a conv's input channels, not its window
// taps) as loops, outermost first, until it fits; the spatial loops of a
// register tile stay marked, those of a tile too large for registers or
// vectorized across rows (lane by lane) are kept as loops too. A scalar
// nest that only moves data with a stride (a tile's transposing write-back)
// keeps its loops past a budget of about 16 copies.
#pragma once

#include <cstdint>

#include "absl/container/flat_hash_set.h"

#include "common/lower/stmt.h"

namespace tuneforge::lower {

// Loops of stages with a pragma of their own: an enclosing stage's pragma
// leaves them as that pragma marked them (the nearest pragma governs a loop).
using GovernedLoops = absl::flat_hash_set<const te::VarNode*>;

Stmt MarkAutoUnroll(const Stmt& nest, int64_t max_step, const GovernedLoops& governed);

}  // namespace tuneforge::lower
