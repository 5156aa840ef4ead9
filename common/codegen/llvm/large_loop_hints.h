// Loop hints for the bodies a schedule has already unrolled, which LLVM's
// loop passes would otherwise spend a candidate's compile time analysing.
//
// LargeLoopVectorizerHints, run just before LLVM's loop vectorizer: an
// innermost loop with more memory operations than `max_memory_ops` gets
// `llvm.loop.vectorize.enable` 0 (off). The vectorizer's loop-access
// analysis compares every pair of accesses to one buffer, so a big unrolled
// body (a scalar depthwise or conv 7x7 tile of thousands of loads) cost it
// seconds per candidate; such bodies are the schedule's own unrolled tile
// and are not what LLVM's vectorizer is for. So is an innermost loop of more
// than `max_strided_stores` stores none of which steps to the next element
// from one iteration to the next: a tile's write-back unrolled over its
// rows (112 scalar stores 112 floats apart a trip, in a stem candidate).
// LLVM can only scatter such stores or group a few of them, and never did
// (the same assembly in 480 sampled candidates of 14 workloads); comparing
// their pairs was a fifth of the compile of 7 of 12 median stem candidates.
// So is a loop that only gathers: every load more than 8 elements from the
// last (past LLVM's widest interleaved group), every store to the next
// element (a tile's transposing write-back, channel-last tile to NCHW rows,
// that the schedule left a loop). LLVM vectorized it as 16 scalar loads and
// lane inserts per vector store: more code, and the stem's best kernels ran
// 1.5 % slower than with the scalar loop.
// Small leftover loops (a layer norm's row sums, a copy back from a cache
// stage) stay vectorizable: LLVM's vectorizer makes those up to 3x faster.
//
// LargeLoopUnrollHints, run at the start of the pipeline: a loop too large
// for LLVM's unroller to copy gets `llvm.loop.unroll.disable`, so the
// unroller does not simulate its iterations to find that out (a stem or
// strided depthwise candidate's loop of 6 channels around a 2,700-
// instruction tile: a seventh of its middle end). The bounds keep far from
// what O3 unrolls (300 instructions unrolled, up to 4x that where it
// predicts folding), so the code LLVM makes is the same: byte for byte in
// 219 of 220 sampled stem, strided depthwise, matmul and direct conv
// candidates (the other, a slow stem candidate, lost an unrolled copy).
#pragma once

#include <cstdint>

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/PassManager.h"

namespace tuneforge::codegen {

// Marks `loop` llvm.loop.unroll.disable, dropping any unroll hint it had
// (the emitter's llvm.loop.unroll.full would win over a disable beside it).
void DisableUnrolling(llvm::Loop& loop);

// Which innermost loops LargeLoopVectorizerHints leaves to LLVM's vectorizer.
struct VectorizerHintBounds {
  int max_memory_ops = 256;
  int max_strided_stores = 32;
};

class LargeLoopVectorizerHints : public llvm::PassInfoMixin<LargeLoopVectorizerHints> {
 public:
  explicit LargeLoopVectorizerHints(VectorizerHintBounds bounds) : bounds_(bounds) {}
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);

 private:
  VectorizerHintBounds bounds_;
};

// Which loops LargeLoopUnrollHints leaves to LLVM: a loop is hinted when its
// instructions (inner loops' included) pass `min_outer_size`, or
// `min_innermost_size` for an innermost loop (where LLVM also unrolls by
// runtime trip counts and interleaves vectorized loops), and its trip count
// times that size passes `min_unrolled_size` (or the count is unknown).
struct UnrollHintBounds {
  int64_t min_outer_size = 300;
  int64_t min_innermost_size = 1000;
  int64_t min_unrolled_size = 3000;
};

class LargeLoopUnrollHints : public llvm::PassInfoMixin<LargeLoopUnrollHints> {
 public:
  explicit LargeLoopUnrollHints(UnrollHintBounds bounds) : bounds_(bounds) {}
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);

 private:
  UnrollHintBounds bounds_;
};

}  // namespace tuneforge::codegen
