// A function pass run just before LLVM's loop vectorizer: an innermost loop
// with more memory operations than `max_memory_ops` gets
// `llvm.loop.vectorize.enable` 0 (off). The vectorizer's loop-access analysis
// compares every pair of accesses to one buffer, so a big unrolled body (a
// scalar depthwise or conv 7x7 tile of thousands of loads) cost it seconds
// per candidate; such bodies are the schedule's own unrolled tile and are
// not what LLVM's vectorizer is for. Small leftover loops (a layer norm's
// row sums, a copy back from a cache stage) stay vectorizable: LLVM's
// vectorizer makes those up to 3x faster.
#pragma once

#include "llvm/IR/PassManager.h"

namespace tuneforge::codegen {

class LargeLoopVectorizerHints : public llvm::PassInfoMixin<LargeLoopVectorizerHints> {
 public:
  explicit LargeLoopVectorizerHints(int max_memory_ops) : max_memory_ops_(max_memory_ops) {}
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);

 private:
  int max_memory_ops_;
};

}  // namespace tuneforge::codegen
