// The first lowering pass: the loop nest of every stage, with stages placed
// by compute_at inside their target loops, reductions initialised right
// before their outermost reduction loop, non-divisible splits guarded, and
// reads of other stages turned into loads of their buffers. Indices are
// still multi-dimensional; later passes flatten, simplify, vectorize and
// unroll.
#pragma once

#include "absl/status/statusor.h"
#include "common/lower/lower_context.h"
#include "common/lower/stmt.h"

namespace tuneforge::lower {

absl::StatusOr<Stmt> BuildLoopNest(const LowerContext& ctx);
// LoweredFunc::prepack: the nests of ctx.hoisted's stages writing their
// packed buffers; null when there are none.
Stmt BuildPrepackNest(const LowerContext& ctx);

}  // namespace tuneforge::lower
