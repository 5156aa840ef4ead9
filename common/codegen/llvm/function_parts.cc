// A kernel's functions optimized and compiled apart, one module each, and
// merged back into one object: what lets a builder skip the functions it
// compiled for an earlier candidate (function_object_cache.h).
//
// Optimizing and compiling a function alone costs what it costs inside the
// whole module (measured on Winograd candidates, whose five to seven
// functions are the most: the sums within a few percent either way): the
// functions only call each other through the runtime's parallel loop, so
// the whole-module passes (inlining, interprocedural constant propagation)
// have nothing to join.
#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/codegen/function_object_cache.h"
#include "common/codegen/llvm/backend.h"
#include "common/millis_since.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace tuneforge::codegen {
namespace {

// Value and block names reach no object; they carry loop names, which differ
// between programs of the same code (a fused loop's name lists the loops
// fused, of extent 1 or not).
void DropLocalNames(llvm::Module& part) {
  for (llvm::Function& f : part) {
    for (llvm::Argument& a : f.args()) a.setName("");
    for (llvm::BasicBlock& b : f) {
      b.setName("");
      for (llvm::Instruction& i : b)
        if (!i.getType()->isVoidTy()) i.setName("");
    }
  }
}

// The part's one defined function (the first, where it came back whole).
std::string DefinedName(const llvm::Module& part) {
  for (const llvm::Function& f : part)
    if (!f.isDeclaration()) return f.getName().str();
  return "";
}

int InstructionCount(const llvm::Module& part) {
  int n = 0;
  for (const llvm::Function& f : part) n += static_cast<int>(f.getInstructionCount());
  return n;
}

// What decides a part's object: its unoptimized IR (whose bitcode carries
// the triple, the data layout, the function's target attributes and the
// declarations it calls), the target and the optimization level. Bitcode,
// not the IR's text: printing tracked every character's column and printed
// each float constant in decimal, a tenth of a cached build's time.
std::string DigestOf(const llvm::Module& part, const std::string& target_key, int opt_level) {
  std::string bytes = absl::StrCat("O", opt_level, " ", target_key, "\n");
  llvm::raw_string_ostream os(bytes);
  llvm::WriteBitcodeToFile(part, os);
  os.flush();
  llvm::BLAKE3Result<32> digest =
      llvm::BLAKE3::hash<32>(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  return std::string(digest.begin(), digest.end());
}

}  // namespace

std::vector<std::unique_ptr<llvm::Module>> SplitIntoFunctions(std::unique_ptr<llvm::Module> module) {
  std::vector<std::unique_ptr<llvm::Module>> parts;
  int defined = 0;
  for (const llvm::Function& f : module->functions()) defined += f.isDeclaration() ? 0 : 1;
  // Global variables would need a home part; kernels have none today.
  if (defined <= 1 || !module->global_empty()) {
    parts.push_back(std::move(module));
    return parts;
  }
  // A part declares the functions it hands to the runtime; their definitions
  // in other parts must be visible to the merge, not beyond the kernel.
  for (llvm::Function& f : module->functions()) {
    if (f.isDeclaration() || !f.hasLocalLinkage()) continue;
    f.setLinkage(llvm::GlobalValue::ExternalLinkage);
    f.setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
  for (const llvm::Function& f : module->functions()) {
    if (f.isDeclaration()) continue;
    llvm::ValueToValueMapTy map;
    parts.push_back(llvm::CloneModule(*module, map, [&f](const llvm::GlobalValue* g) { return g == &f; }));
  }
  // Constants belong to the context, shared by its modules, and list their
  // uses: the original's bodies would double every list the code generator
  // walks. The original goes before any part is compiled.
  module.reset();
  return parts;
}

absl::Status CompileFunctionsApart(std::unique_ptr<llvm::Module> module, llvm::TargetMachine& machine,
                                   const std::string& target_key, int opt_level, FunctionObjectCache* cache,
                                   const std::string& llvm_error, CompiledObject& out) {
  std::vector<std::string> objects;
  for (std::unique_ptr<llvm::Module>& part : SplitIntoFunctions(std::move(module))) {
    FunctionBuild& build = out.function_builds.emplace_back();
    build.name = DefinedName(*part);
    build.instructions_before = InstructionCount(*part);
    std::string digest;
    if (cache) {
      DropLocalNames(*part);
      digest = DigestOf(*part, target_key, opt_level);
      if (std::optional<std::string> cached = cache->Find(digest)) {
        objects.push_back(*std::move(cached));
        build.reused = true;
        continue;
      }
    }
    auto optimize_start = std::chrono::steady_clock::now();
    OptimizeModule(*part, machine, opt_level);
    build.optimize_ms = MillisSince(optimize_start);
    out.optimize_ms += build.optimize_ms;
    build.instructions_after = InstructionCount(*part);
    if (!llvm_error.empty()) return absl::InternalError(absl::StrCat("LLVM failed to optimize the kernel: ", llvm_error));
    auto machine_code_start = std::chrono::steady_clock::now();
    absl::StatusOr<std::string> object = EmitMachineCode(*part, machine, llvm::CodeGenFileType::ObjectFile);
    build.machine_code_ms = MillisSince(machine_code_start);
    out.machine_code_ms += build.machine_code_ms;
    if (!object.ok()) return object.status();
    if (!llvm_error.empty()) return absl::InternalError(absl::StrCat("LLVM failed to generate code: ", llvm_error));
    if (cache) cache->Add(digest, *object);
    objects.push_back(*std::move(object));
  }
  auto merge_start = std::chrono::steady_clock::now();
  absl::StatusOr<std::string> merged = LinkRelocatable(std::move(objects));
  out.machine_code_ms += MillisSince(merge_start);
  if (!merged.ok()) return merged.status();
  out.object = *std::move(merged);
  return absl::OkStatus();
}

}  // namespace tuneforge::codegen
