// Expression simplification for generated code: canonical integer sums,
// floor division/modulo by constants using variable ranges (so a fused and
// re-split index `(i*16 + j) // 16` becomes `i` when j < 16), comparisons
// decided by ranges (dropping guards that always hold), constant folding,
// and vector index algebra (ramp + ramp, ramp * constant).
#pragma once

#include "common/te/arith/interval.h"
#include "common/te/expr.h"

namespace tuneforge::te::arith {

Expr Simplify(const Expr& e, const VarBounds& bounds = {});

}  // namespace tuneforge::te::arith
