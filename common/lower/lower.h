// State -> LoweredFunc: the loop nest a schedule describes, ready for code
// generation. The passes run in the order listed in lower/pipeline.cc.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/lower/stmt.h"
#include "common/schedule/state.h"

namespace tuneforge::lower {

struct LowerOptions {
  // GPU bindings (blockIdx/threadIdx) are only valid for GPU code; CPU code
  // generation rejects them. vthread is lowered as an unrolled loop.
  bool gpu = false;
  // Unroll loops annotated `unroll` (and auto_unroll_max_step nests) in the
  // IR rather than leaving unroll hints to LLVM.
  bool unroll = true;
  // Turn `vectorize` loops into vector expressions (Ramp/Broadcast).
  bool vectorize = true;
  // float32 lanes of the target's vector register (0: unknown). Vectorized
  // loops whose width is not a power of two are cut into whole registers
  // (passes/vectorize.h); what a CPU build lowers with.
  int register_lanes = 0;
  // Take border tests out of the innermost loops and drop the multiply-adds
  // of padding (passes/partition_boundaries.h); with `unroll` only.
  bool partition_boundaries = true;
  // Precompute stages that read only constant placeholders (weights) once,
  // before the kernel runs, into argument buffers in the layout the kernel
  // reads them (Ansor's layout rewrite): see LoweredFunc::prepack. CPU only.
  bool hoist_constants = true;
  // Also lower the function that packs them (LoweredFunc::prepack). The
  // search's features describe the kernel alone and skip it: a Winograd
  // program's transform matrices and packed weights are a second nest to
  // build and simplify for every candidate scored.
  bool prepack = true;
  // Read an inlined constant matrix (a Winograd transform's B, G or A) as 1
  // instead of its select chain over the entries: the program the search's
  // features describe. Unrolled, each entry is a constant and the chain is
  // gone; kept as loops, the chains (four per transform statement, two in
  // the sum's condition that skips zero entries) were about 45 % of a
  // Winograd program's feature extraction, and counted as compare and
  // select operations the kernel never runs. Not for code: the values are
  // wrong.
  bool constant_matrices_as_one = false;
  // Name of the kernel symbol.
  std::string name = "default_function";

  // What CUDA code generation takes: GPU bindings, scalar code, and unrolled
  // loops left as loops marked unrolled (`#pragma unroll`: NVRTC unrolls
  // them, and the source stays small).
  static LowerOptions Gpu() {
    LowerOptions o;
    o.gpu = true;
    o.vectorize = false;
    o.unroll = false;
    o.hoist_constants = false;
    return o;
  }
  // What a build for a GPU or a CPU lowers with (the builder's choice; the
  // search's duplicate check lowers with it up to vectorizing and unrolling).
  static LowerOptions ForTarget(bool gpu) { return gpu ? Gpu() : LowerOptions{}; }
};

// Errors (an invalid placement, a GPU binding on CPU, ...) name the stage
// and the problem.
absl::StatusOr<LoweredFunc> Lower(const schedule::State& state, const LowerOptions& options = {});

}  // namespace tuneforge::lower
