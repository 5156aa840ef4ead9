#include "common/codegen/llvm/large_loop_hints.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

namespace tuneforge::codegen {
namespace {

int MemoryOps(const llvm::Loop& loop) {
  int n = 0;
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block) n += inst.mayReadOrWriteMemory() ? 1 : 0;
  return n;
}

int64_t Instructions(const llvm::Loop& loop) {
  int64_t n = 0;
  for (const llvm::BasicBlock* block : loop.blocks()) n += static_cast<int64_t>(block->size());
  return n;
}

}  // namespace

void DisableUnrolling(llvm::Loop& loop) {
  llvm::LLVMContext& ctx = loop.getHeader()->getContext();
  llvm::MDNode* disable = llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.disable")});
  loop.setLoopID(llvm::makePostTransformationMetadata(ctx, loop.getLoopID(), {"llvm.loop.unroll."}, {disable}));
}

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

llvm::PreservedAnalyses LargeLoopUnrollHints::run(llvm::Function& function,
                                                  llvm::FunctionAnalysisManager& analyses) {
  llvm::LoopInfo& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  llvm::ScalarEvolution& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    // A loop the schedule asked to unroll (or not) keeps its hint.
    if (llvm::findOptionMDForLoop(loop, "llvm.loop.unroll.full") ||
        llvm::findOptionMDForLoop(loop, "llvm.loop.unroll.disable"))
      continue;
    const int64_t size = Instructions(*loop);
    const int64_t trips = scev.getSmallConstantTripCount(loop);  // 0: unknown
    const int64_t min_size = loop->isInnermost() ? bounds_.min_innermost_size : bounds_.min_outer_size;
    if (size <= min_size || (trips > 0 && trips * size <= bounds_.min_unrolled_size)) continue;
    DisableUnrolling(*loop);
  }
  // Only loop metadata changed: every analysis still holds.
  return llvm::PreservedAnalyses::all();
}

}  // namespace tuneforge::codegen
