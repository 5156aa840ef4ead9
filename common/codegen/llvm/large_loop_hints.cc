#include "common/codegen/llvm/large_loop_hints.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

namespace tuneforge::codegen {
namespace {

int MemoryOps(const llvm::Loop& loop) {
  int n = 0;
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block) n += inst.mayReadOrWriteMemory() ? 1 : 0;
  return n;
}

}  // namespace

llvm::PreservedAnalyses LargeLoopVectorizerHints::run(llvm::Function& function,
                                                      llvm::FunctionAnalysisManager& analyses) {
  llvm::LoopInfo& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    // A loop the schedule asked to vectorize keeps its hint.
    if (llvm::findStringMetadataForLoop(loop, "llvm.loop.vectorize.enable")) continue;
    if (loop->isInnermost() && MemoryOps(*loop) > max_memory_ops_)
      llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.enable", 0);
  }
  // Only loop metadata changed: every analysis still holds.
  return llvm::PreservedAnalyses::all();
}

}  // namespace tuneforge::codegen
