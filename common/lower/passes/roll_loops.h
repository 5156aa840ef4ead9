// Every loop marked unrolled becomes a plain loop. Used on the prepack
// nest (LoweredFunc::prepack): it runs once per kernel, outside the timed
// calls, yet a precomputed stage keeps the unroll pragma the search gave
// it, and copying a packing loop of 256 scattered stores cost 1.4 s of a
// conv candidate's compile time and bought nothing.
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

Stmt RollLoops(const Stmt& body);

}  // namespace tuneforge::lower
