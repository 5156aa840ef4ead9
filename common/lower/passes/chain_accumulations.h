// Joins a run of statements that accumulate into one element,
//   acc[i] = init;  acc[i] = acc[i] + t1;  ...;  acc[i] = acc[i] + tn;
// into one store, acc[i] = (((init + t1) + t2) ... + tn): the same sums in
// the same order, so the same result bit for bit. An unrolled reduction
// axis innermost under its output (Winograd's transforms: simplify_const_tensor
// unrolls each output's taps) lowers to one such run per output, and each
// load and store of the run was LLVM's to forward and delete: in the
// transforms' functions, a few thousand instructions of unoptimized IR whose
// clean-up (EarlyCSE, InstCombine, GVN, DSE) was most of their optimize time.
// A term that reads the accumulator's buffer ends the run (it could read the
// element being summed), and a run is cut every 64 terms (kMaxChainedTerms).
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

Stmt ChainAccumulations(const Stmt& body);

}  // namespace tuneforge::lower
