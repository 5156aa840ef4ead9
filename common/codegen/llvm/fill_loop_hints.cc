#include "common/codegen/llvm/fill_loop_hints.h"

#include "common/codegen/llvm/large_loop_hints.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

namespace tuneforge::codegen {
namespace {

// The stores of one iteration of `loop` (its inner loops' counted once per
// their own constant trip count) when every memory operation in it stores a
// constant; -1 when it reads memory, calls out or stores a computed value.
int64_t FillStores(const llvm::Loop& loop, const llvm::LoopInfo& loops, llvm::ScalarEvolution& scev) {
  int64_t stores = 0;
  for (const llvm::Loop* inner : loop.getSubLoops()) {
    const int64_t trips = scev.getSmallConstantTripCount(inner);
    const int64_t per_trip = FillStores(*inner, loops, scev);
    if (trips == 0 || per_trip < 0) return -1;
    stores += trips * per_trip;
  }
  for (const llvm::BasicBlock* block : loop.blocks()) {
    if (loops.getLoopFor(block) != &loop) continue;  // an inner loop's, counted above
    for (const llvm::Instruction& inst : *block) {
      if (!inst.mayReadOrWriteMemory()) continue;
      const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
      if (!store || !llvm::isa<llvm::Constant>(store->getValueOperand())) return -1;
      ++stores;
    }
  }
  return stores;
}

}  // namespace

llvm::PreservedAnalyses FillLoopUnrollHints::run(llvm::Function& function,
                                                 llvm::FunctionAnalysisManager& analyses) {
  llvm::LoopInfo& loops = analyses.getResult<llvm::LoopAnalysis>(function);
  llvm::ScalarEvolution& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    const int64_t trips = scev.getSmallConstantTripCount(loop);
    const int64_t per_trip = FillStores(*loop, loops, scev);
    if (trips == 0 || per_trip <= 0 || trips * per_trip <= max_stores_) continue;
    DisableUnrolling(*loop);
  }
  // Only loop metadata changed: every analysis still holds.
  return llvm::PreservedAnalyses::all();
}

}  // namespace tuneforge::codegen
