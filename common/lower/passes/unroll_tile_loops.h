// Small serial loops inside a reduction's loop (a register tile's rows,
// columns and taps: `for ow.3 in 0..7` inside `for rc.1 in 0..256`) are
// marked unrolled, as LLVM would unroll them anyway. The reduction loop is
// then the innermost loop, and PartitionBoundaries asks its taps' border
// tests once above it: one copy of the loop per distinct set of taps. Left to
// LLVM, the tile stayed loops, a border test had to be decided by cutting an
// outer loop, and every border piece carried a copy of the full tile too
// (a direct conv candidate: 320 multiply-adds of code for its 160 distinct
// ones, and twice the compile time).
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

Stmt UnrollTileLoops(const Stmt& body);

// Whether `loop` carries a reduction: a store in its body adds into the
// element it reads (`acc[i] = acc[i] + t`), at an index that does not move
// with the loop.
bool AccumulatesOver(const For& loop);

}  // namespace tuneforge::lower
