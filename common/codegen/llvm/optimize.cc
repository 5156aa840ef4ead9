#include "common/codegen/llvm/backend.h"
#include "common/codegen/llvm/fill_loop_hints.h"
#include "common/codegen/llvm/large_loop_hints.h"
#include "common/codegen/llvm/pass_clock.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"

namespace tuneforge::codegen {
namespace {

llvm::OptimizationLevel PipelineLevel(int opt_level) {
  switch (opt_level) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 2: return llvm::OptimizationLevel::O2;
    default: return llvm::OptimizationLevel::O3;
  }
}

// Innermost loops with more memory operations than this, or more stores
// than this none of which is consecutive over the loop, are not given to
// LLVM's loop vectorizer (large_loop_hints.h). A layer norm's leftover
// loops hold a few dozen memory operations and one store; the unrolled
// tiles that cost the vectorizer seconds, thousands; a stem's write-back
// of a tile, 112 stores.
constexpr VectorizerHintBounds kLlvmVectorizerBounds{.max_memory_ops = 256, .max_strided_stores = 32};

// Loops too large for LLVM to unroll are marked so at the start
// (large_loop_hints.h, UnrollHintBounds): its unroller otherwise simulates
// their iterations to find that out.

// Loops that only store constants stay loops past this many stores
// (fill_loop_hints.h): more vectors than a register file holds.
constexpr int kMaxUnrolledFillStores = 64;

// LLVM passes that never paid for themselves on tuneforge's kernels.
// Loop-load elimination forwards a value stored in one iteration to the
// next iteration's load; the lowered loops have no such pairs (accumulators
// are promoted by LICM), and its loop-access analysis of a big unrolled body
// took up to 2.3 s. Skipping it left the kernels of 96 candidates of eight
// bench workloads as fast as before.
bool Skipped(llvm::StringRef pass) { return pass == "LoopLoadEliminationPass"; }

}  // namespace

void OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  llvm::PassInstrumentationCallbacks instrumentation;
  instrumentation.registerShouldRunOptionalPassCallback(
      [](llvm::StringRef pass, llvm::Any) { return !Skipped(pass); });
  MaybeTimePasses(instrumentation);
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &instrumentation);
  builder.registerPipelineStartEPCallback([](llvm::ModulePassManager& passes, llvm::OptimizationLevel) {
    passes.addPass(llvm::createModuleToFunctionPassAdaptor(FillLoopUnrollHints(kMaxUnrolledFillStores)));
    passes.addPass(llvm::createModuleToFunctionPassAdaptor(LargeLoopUnrollHints(UnrollHintBounds{})));
  });
  builder.registerVectorizerStartEPCallback([](llvm::FunctionPassManager& passes, llvm::OptimizationLevel) {
    passes.addPass(LargeLoopVectorizerHints(kLlvmVectorizerBounds));
  });
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      opt_level == 0 ? builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                     : builder.buildPerModuleDefaultPipeline(PipelineLevel(opt_level));
  passes.run(module, mam);
}

}  // namespace tuneforge::codegen
