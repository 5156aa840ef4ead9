// Loops of the prepack nest (LoweredFunc::prepack) made plain. It runs once
// per kernel, outside the timed calls, yet a precomputed stage keeps the
// unroll pragma the search gave it, and copying a packing loop of 256
// scattered stores cost 1.4 s of a conv candidate's compile time and bought
// nothing: every loop marked unrolled becomes a serial loop.
//
// A nest that only copies (a weight's layout rewrite: each store writes a
// loaded element, or padding) goes further: its serial loops become rolled
// ones, which LLVM neither unrolls nor vectorizes. LLVM O3 turned such a
// 4-deep copy (57 instructions) into 271 of unrolled, interleaved and
// shuffled code in 20-24 ms, a fifth of a direct conv candidate's compile,
// and the rolled copy runs as fast (about 2 ms of a 2.36 MB weight, which
// its scattered stores bound). A prepack that computes (Winograd's kernel
// transform) keeps LLVM's loop optimizations.
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

Stmt RollLoops(const Stmt& body);

// Whether every store of `nest` writes a copied value: a load or constant,
// or a select between such values, with no floating-point arithmetic.
bool OnlyCopies(const Stmt& nest);

}  // namespace tuneforge::lower
