#include "common/codegen/llvm/backend.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
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

}  // namespace

void OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  llvm::PassBuilder builder(&machine, tuning);
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
