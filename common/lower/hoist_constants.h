// Layout rewrite (Ansor's "simplify compute with constant tensors"): finds
// the stages whose values depend on constant placeholders alone (a weight's
// packing copy, a transposed conv's flipped kernel) and gives each a packed
// argument buffer, so the kernel reads them precomputed and LoweredFunc::
// prepack fills them once. A stage attached inside another's loops keeps one
// slice per value of each term of its region's start, ordered by the loops
// the terms come from: a matmul's B panel packed inside (j.0, k.0) becomes
// B.local.packed[j.0][k.0][k.1][j.1], the blocked layout the tiles read
// contiguously and in order.
#pragma once

#include "common/lower/lower_context.h"

namespace tuneforge::lower {

// Fills ctx->hoisted and appends the packed buffers to ctx->arguments (but
// those only other hoisted stages read, which the prepack function allocates).
// Stages it cannot hoist (they read a non-constant, host other stages, or
// their packed copy would be much larger than the tensor) stay as they are.
void HoistConstantStages(LowerContext* ctx);

}  // namespace tuneforge::lower
