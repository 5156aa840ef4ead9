// Checks that a compute op's reads stay inside the tensors they read, so that
// a definition with an off-by-one index fails when it is loaded rather than
// reading stray memory when it runs.
//
// Index ranges come from interval arithmetic over the op's axes (+ - * // %
// min max select on integers). A read guarded by select(condition, ...) or a
// reduction's where condition is checked against the axis ranges the
// condition leaves: conjunctions of comparisons between one axis (plus a
// constant) and a constant ("h >= 1 && h < 57") narrow them, and tests like
// "x % 2 == 0" are understood to narrow nothing. A read under a guard of any
// other form is trusted, so a correct definition is never rejected for a
// guard this check cannot read.
#pragma once

#include "absl/status/status.h"
#include "common/te/tensor.h"

namespace tuneforge::te::definition {

absl::Status CheckReadsInBounds(const Tensor& op);

}  // namespace tuneforge::te::definition
