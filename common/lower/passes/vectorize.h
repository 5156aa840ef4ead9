// Loops annotated `vectorize` become vector statements: the loop variable
// becomes ramp(0, 1, lanes), so contiguous accesses become vector loads and
// stores, invariant ones broadcasts and the rest gathers/scatters. A loop
// whose body cannot be vectorized (inner loops, a condition on the loop
// variable, a store every lane would write to the same element) stays a
// loop marked vectorized, which code generation hands to LLVM's vectorizer.
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

// Longer vectorized loops stay loops (LLVM's vectorizer handles them).
inline constexpr int64_t kMaxVectorLanes = 64;

Stmt Vectorize(const Stmt& body);

}  // namespace tuneforge::lower
