// IrEmitter: the kernel's entry point, function attributes, alias scopes
// and the runtime functions generated code calls.
#include "absl/strings/str_cat.h"
#include "common/codegen/llvm/backend.h"
#include "common/codegen/llvm/ir_emitter.h"
#include "common/codegen/llvm/uses.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/MDBuilder.h"

namespace tuneforge::codegen {

void IrEmitter::SetFunctionAttributes(llvm::Function* fn) {
  if (!target_.cpu.empty()) fn->addFnAttr("target-cpu", target_.cpu);
  if (std::string features = LlvmFeatures(target_); !features.empty())
    fn->addFnAttr("target-features", features);
  if (target_.is_x86()) {
    // Without these LLVM splits 512-bit vectors in two on AVX-512 machines
    // whose tuning prefers 256-bit code.
    std::string bits = std::to_string(target_.vector_bits);
    fn->addFnAttr("prefer-vector-width", bits);
    fn->addFnAttr("min-legal-vector-width", bits);
  }
  // Float ops do not trap: lets LLVM speculate them out of branches.
  fn->addFnAttr("no-trapping-math", "true");
  fn->setDoesNotThrow();
}

llvm::AllocaInst* IrEmitter::CreateEntryAlloca(llvm::Type* type, uint64_t align,
                                               const std::string& name) {
  llvm::IRBuilder<> entry(frame_->entry, frame_->entry->getFirstInsertionPt());
  llvm::AllocaInst* alloca = entry.CreateAlloca(type, nullptr, name);
  alloca->setAlignment(llvm::Align(align));
  return alloca;
}

// Buffers never overlap (arguments are distinct, temporaries are fresh), but
// their pointers are loaded from `args` or a closure, where `noalias`
// parameters cannot say so. One alias scope per buffer says it instead:
// every access is in its buffer's scope and noalias with all others.
void IrEmitter::CreateAliasScopes(const lower::LoweredFunc& func) {
  std::vector<te::Buffer> buffers = func.args;
  for (const te::Buffer& b : CollectUses(func.body).buffers) buffers.push_back(b);
  llvm::MDBuilder md(ctx_);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(func.name);
  std::vector<std::pair<const te::BufferNode*, llvm::MDNode*>> scopes;
  for (const te::Buffer& b : buffers) {
    if (alias_scope_.contains(b.get())) continue;
    llvm::MDNode* scope = md.createAnonymousAliasScope(domain, b->name);
    alias_scope_[b.get()] = llvm::MDNode::get(ctx_, {scope});
    scopes.emplace_back(b.get(), scope);
  }
  for (const auto& [buffer, scope] : scopes) {
    std::vector<llvm::Metadata*> others;
    for (const auto& [other, other_scope] : scopes) {
      if (other != buffer) others.push_back(other_scope);
    }
    noalias_[buffer] = llvm::MDNode::get(ctx_, others);
  }
}

void IrEmitter::AnnotateAccess(llvm::Value* access, const te::Buffer& buffer) {
  auto* inst = llvm::dyn_cast<llvm::Instruction>(access);
  auto scope = alias_scope_.find(buffer.get());
  if (!inst || scope == alias_scope_.end()) return;
  inst->setMetadata(llvm::LLVMContext::MD_alias_scope, scope->second);
  inst->setMetadata(llvm::LLVMContext::MD_noalias, noalias_.at(buffer.get()));
}

void IrEmitter::EmitKernel(const lower::LoweredFunc& func) {
  kernel_name_ = func.name;
  CreateAliasScopes(func);
  llvm::FastMathFlags contract;
  contract.setAllowContract();
  b_.setFastMathFlags(contract);

  // extern "C" int32_t name(void** args)
  llvm::Type* ptr = b_.getPtrTy();
  auto* type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr}, false);
  auto* kernel = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, func.name, module_);
  SetFunctionAttributes(kernel);
  llvm::Argument* args = kernel->getArg(0);
  args->setName("args");
  args->addAttr(llvm::Attribute::NoAlias);
  args->addAttr(llvm::Attribute::NoCapture);
  args->addAttr(llvm::Attribute::ReadOnly);

  FunctionFrame frame{kernel, llvm::BasicBlock::Create(ctx_, "entry", kernel), {}};
  frame_ = &frame;
  b_.SetInsertPoint(frame.entry);
  for (size_t i = 0; i < func.args.size(); ++i) {
    llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr, args, i);
    buffers_[func.args[i].get()] = b_.CreateAlignedLoad(ptr, slot, llvm::Align(8), func.args[i]->name);
  }
  EmitStmt(func.body);
  b_.CreateRet(b_.getInt32(0));
  frame_ = nullptr;
  buffers_.clear();
}

llvm::FunctionCallee IrEmitter::RuntimeParallelFor() {
  auto* type = llvm::FunctionType::get(b_.getInt32Ty(),
                                       {b_.getInt64Ty(), b_.getPtrTy(), b_.getPtrTy()}, false);
  llvm::FunctionCallee f = module_.getOrInsertFunction("tuneforge_parallel_for", type);
  llvm::cast<llvm::Function>(f.getCallee())->setDoesNotThrow();
  return f;
}

llvm::FunctionCallee IrEmitter::RuntimeAlloc() {
  auto* type = llvm::FunctionType::get(b_.getPtrTy(), {b_.getInt64Ty()}, false);
  llvm::FunctionCallee f = module_.getOrInsertFunction("tuneforge_alloc", type);
  auto* fn = llvm::cast<llvm::Function>(f.getCallee());
  fn->setDoesNotThrow();
  fn->setReturnDoesNotAlias();  // fresh memory, like malloc
  return f;
}

llvm::FunctionCallee IrEmitter::RuntimeFree() {
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false);
  llvm::FunctionCallee f = module_.getOrInsertFunction("tuneforge_free", type);
  llvm::cast<llvm::Function>(f.getCallee())->setDoesNotThrow();
  return f;
}

}  // namespace tuneforge::codegen
