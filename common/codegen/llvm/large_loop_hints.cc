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

// LLVM's vectorizer loads an access group whose stride spans at most this
// many elements as whole vectors and shuffles them apart (its
// max-interleave-group-factor): a stride-2 pooling's input. Wider strides it
// gathers lane by lane.
constexpr uint64_t kMaxInterleavedStride = 8;

// How the loads or the stores of an innermost loop move from one iteration
// to the next: by their own size (consecutive: the vectorizer widens them
// into vector accesses), by more than kMaxInterleavedStride elements
// (gathered: it moves them lane by lane), or otherwise (a small stride, an
// invariant address, or one that is not affine in the loop).
struct StepCounts {
  int all = 0;
  int consecutive = 0;
  int gathered = 0;
};

struct AccessSteps {
  StepCounts loads, stores;
};

AccessSteps CountAccessSteps(const llvm::Loop& loop, llvm::ScalarEvolution& scev) {
  AccessSteps steps;
  const llvm::DataLayout& layout = loop.getHeader()->getModule()->getDataLayout();
  auto count = [&](const llvm::Value* pointer, llvm::Type* type, StepCounts& counts) {
    ++counts.all;
    const auto* address = llvm::dyn_cast<llvm::SCEVAddRecExpr>(scev.getSCEV(const_cast<llvm::Value*>(pointer)));
    if (address == nullptr || address->getLoop() != &loop) return;
    const auto* step = llvm::dyn_cast<llvm::SCEVConstant>(address->getStepRecurrence(scev));
    if (step == nullptr || step->getAPInt().isZero()) return;
    const uint64_t size = layout.getTypeStoreSize(type).getFixedValue();
    if (step->getAPInt().abs() == size) ++counts.consecutive;
    if (step->getAPInt().abs().ugt(kMaxInterleavedStride * size)) ++counts.gathered;
  };
  for (const llvm::BasicBlock* block : loop.blocks())
    for (const llvm::Instruction& inst : *block) {
      if (const auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst))
        count(store->getPointerOperand(), store->getValueOperand()->getType(), steps.stores);
      else if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst))
        count(load->getPointerOperand(), load->getType(), steps.loads);
    }
  return steps;
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
      const AccessSteps steps = CountAccessSteps(*loop, scev);
      const bool many_scattered_stores =
          steps.stores.all > bounds_.max_strided_stores && steps.stores.consecutive == 0;
      const bool gathers_a_copy = steps.loads.all > 0 && steps.loads.gathered == steps.loads.all &&
                                  steps.stores.all > 0 && steps.stores.consecutive == steps.stores.all;
      leave_to_schedule = many_scattered_stores || gathers_a_copy;
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
