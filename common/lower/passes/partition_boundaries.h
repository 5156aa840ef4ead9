// Boundary tests out of the hot loops (Halide's loop partitioning, TVM's
// LoopPartition). An inlined padding reads `select(0 <= oh + r - 1 < H,
// data[...], 0)`: the test fails only at the border, yet it runs in the
// innermost loop, and every padded tap still costs a multiply-add (oneDNN
// skips them: at 14x14 with a 3x3 kernel, 9% of the work). Two rewrites:
//  - partition: a serial loop whose body tests its own variable against
//    constants (and loops inside it) is cut where a test starts to hold or
//    to fail for all of them (ow in [0,1), [1,6), [6,7)), each piece a loop
//    of its own in which those tests are decided; the partial last tile of
//    a split that does not divide becomes a loop of its own the same way;
//  - unswitch: a test that does not change inside an innermost loop is
//    asked once above it, `if (c) loop[c holds] else loop[c fails]`, nested
//    a few deep; a test over one variable or expression narrows its range in
//    each branch, so tests implied by it are decided too.
// Where every test sits in an innermost loop that carries a reduction (the
// channel loop of a conv, its tile unrolled around each tap), a test over
// the loops outside it is not cut for but unswitched above it: one copy of
// that loop per distinct set of taps, where cuts copied the whole tile into
// every piece of every loop cut (twice the code of a direct conv candidate).
// A parallel loop (which cannot be cut) whose border iterations are rare
// (at most 1 in 8: a 7x7 stem's 3 rows in 112) is versioned instead: `if
// (the iteration is inside) body[its tests decided] else body`, the border
// iterations running the tests; unswitching each of its tests above every
// innermost loop copied the tile per row case in every piece cut inside.
// Versioning adds a copy of the body, so it is kept only where it leaves
// less code than partitioning inside the loop does.
// Each rewritten piece is simplified where it stands, which decides the
// tests; DropPaddedTaps (drop_padded_taps.h) then removes the multiply-adds of zero left behind.
// Both stop where the copies would pass a statement budget per function
// (compile time grows faster than the code).
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

Stmt PartitionBoundaries(const Stmt& body);

}  // namespace tuneforge::lower
