#include "common/codegen/llvm/large_loop_hints.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
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

// Stores of `loop` (a loop the vectorizer sees: innermost) that write the
// element after the previous iteration's, the ones it could widen into
// vector stores; and all of its stores.
struct StoreCounts {
  int all = 0;
  int consecutive = 0;
};

StoreCounts CountStores(const llvm::Loop& loop, llvm::ScalarEvolution& scev) {
  StoreCounts counts;
  const llvm::DataLayout& layout = loop.getHeader()->getModule()->getDataLayout();
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block) {
      const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
      if (store == nullptr) continue;
      ++counts.all;
      const auto* address =
          llvm::dyn_cast<llvm::SCEVAddRecExpr>(scev.getSCEV(const_cast<llvm::Value*>(store->getPointerOperand())));
      if (address == nullptr || address->getLoop() != &loop) continue;
      const auto* step = llvm::dyn_cast<llvm::SCEVConstant>(address->getStepRecurrence(scev));
      const uint64_t size = layout.getTypeStoreSize(store->getValueOperand()->getType()).getFixedValue();
      if (step != nullptr && step->getAPInt().abs() == size) ++counts.consecutive;
    }
  return counts;
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
  llvm::ScalarEvolution& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    // A loop the schedule asked to vectorize keeps its hint.
    if (!loop->isInnermost() || llvm::findStringMetadataForLoop(loop, "llvm.loop.vectorize.enable")) continue;
    bool leave_to_schedule = MemoryOps(*loop) > bounds_.max_memory_ops;
    if (!leave_to_schedule) {
      const StoreCounts stores = CountStores(*loop, scev);
      leave_to_schedule = stores.all > bounds_.max_strided_stores && stores.consecutive == 0;
    }
    if (leave_to_schedule) llvm::addStringMetadataToLoop(loop, "llvm.loop.vectorize.enable", 0);
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
