// A function pass run at the start of LLVM's pipeline: a loop that only
// stores constants (the zeroing of a reduction's accumulator tile, a
// padding border) and whose full unroll would put more than `max_stores`
// stores in one block gets `llvm.loop.unroll.disable`.
//
// Why: the accumulator of a conv's output tile is often hundreds of
// vectors (14 x 14 x 2 of 8 lanes in a best conv 3x3 program), and LLVM
// unrolled its zeroing into one block of 196 stores. The instruction
// selector's DAG combining is superlinear in the stores of a block (28:
// 1.5 ms, 98: 20 ms, 196: 110 ms) and dead-store elimination walks them
// too: 60 % of that program's 280-ms compile went there. The zeroing runs
// once per tile, so a rolled loop costs nothing measurable at run time;
// a tile of up to `max_stores` vectors, which registers could hold, is left
// to LLVM (unrolled, its accumulators can become registers).
#pragma once

#include "llvm/IR/PassManager.h"

namespace tuneforge::codegen {

class FillLoopUnrollHints : public llvm::PassInfoMixin<FillLoopUnrollHints> {
 public:
  explicit FillLoopUnrollHints(int max_stores) : max_stores_(max_stores) {}
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);

 private:
  int max_stores_;
};

}  // namespace tuneforge::codegen
