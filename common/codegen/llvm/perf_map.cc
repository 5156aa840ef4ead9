#include "common/codegen/llvm/perf_map.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"

namespace tuneforge::codegen {
namespace {

// Writes "START SIZE NAME [DYLIB]" (hex, hex, text) per defined function of each
// linked graph once its addresses are final (after fix-ups).
class PerfMapPlugin final : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  void modifyPassConfig(llvm::orc::MaterializationResponsibility& mr, llvm::jitlink::LinkGraph&,
                        llvm::jitlink::PassConfiguration& config) override {
    std::string dylib = mr.getTargetJITDylib().getName();
    config.PostFixupPasses.push_back([this, dylib](llvm::jitlink::LinkGraph& graph) {
      Write(graph, dylib);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility&) override { return llvm::Error::success(); }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey, llvm::orc::ResourceKey) override {}

 private:
  // Each name carries its kernel's JIT dylib (a load number): the same
  // function names come back in every kernel.
  void Write(llvm::jitlink::LinkGraph& graph, const std::string& dylib) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (!f) return;  // profiling aid only: a kernel still runs without it
    for (llvm::jitlink::Symbol* s : graph.defined_symbols()) {
      if (!s->isCallable() || !s->hasName() || s->getSize() == 0) continue;
      std::fprintf(f, "%llx %llx %s [%s]\n", static_cast<unsigned long long>(s->getAddress().getValue()),
                   static_cast<unsigned long long>(s->getSize()), s->getName().str().c_str(), dylib.c_str());
    }
    std::fclose(f);
  }
  std::mutex mu_;
};

}  // namespace

bool PerfMapWanted() {
  static const bool wanted = std::getenv("TUNEFORGE_PERF_MAP") != nullptr;
  return wanted;
}

void MaybeWritePerfMap(llvm::orc::LLJIT& jit) {
  if (!PerfMapWanted()) return;
  if (auto* layer = llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&jit.getObjLinkingLayer()))
    layer->addPlugin(std::make_unique<PerfMapPlugin>());
}

}  // namespace tuneforge::codegen
