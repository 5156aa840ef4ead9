#include "common/codegen/llvm/llvm_init.h"

#include <mutex>

#include "llvm/Support/CommandLine.h"

// Exported by libLLVM; declared here rather than through
// llvm/Support/TargetSelect.h, which would register every built target.
extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
void LLVMInitializeAArch64TargetInfo();
void LLVMInitializeAArch64Target();
void LLVMInitializeAArch64TargetMC();
void LLVMInitializeAArch64AsmPrinter();
}

namespace tuneforge::codegen {

const std::vector<const char*>& LlvmOptions() {
  // The machine scheduler's dependence graph is quadratic in the memory
  // operations of a block: a fully unrolled 512-step tile spent 70% of a
  // 1.8-s compile building it. Past 200 of them LLVM chains them instead
  // (its default is 1,000); compiles of such candidates take a third of
  // the time, and tuned matmul, conv and depthwise kernels run as fast
  // (docs/architecture.md, Decisions).
  // The DAG combiner flattens a block's chain of memory operations into
  // token factors of up to this many operands and prunes them pairwise: a
  // stem candidate's 150 masked loads and stores per block spent 0.9 s of a
  // 1.1-s compile there. At 16 it compiles in 0.3 s to the same assembly, as
  // did 225 of 240 sampled tuned candidates, the rest reordered at the same
  // speed (LLVM's default is 2,048; docs/architecture.md, Decisions).
  static const std::vector<const char*>* options =
      new std::vector<const char*>{"-dag-maps-huge-region=200", "-combiner-tokenfactor-inline-limit=16"};
  return *options;
}

std::mutex& LlvmOptionsMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}

void InitializeLlvmTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    std::vector<const char*> argv = {"tuneforge"};
    argv.insert(argv.end(), LlvmOptions().begin(), LlvmOptions().end());
    llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data());
  });
}

}  // namespace tuneforge::codegen
