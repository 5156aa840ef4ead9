// IrEmitter: parallel loops. The loop body is outlined into
//   int32_t task(int64_t begin, int64_t end, void* closure)
// which runs iterations [begin, end); the closure struct carries every
// buffer pointer and variable the body uses from outside. The kernel calls
// tuneforge_parallel_for(extent, task, closure) and returns its error code.
#include "absl/strings/str_cat.h"
#include "common/codegen/llvm/ir_emitter.h"
#include "common/codegen/llvm/uses.h"

namespace tuneforge::codegen {

void IrEmitter::EmitParallelFor(const lower::For& n) {
  // Captures: what the body uses that is bound out here (variables and
  // buffers bound inside the body are not in the maps yet).
  Uses uses = CollectUses(n.body);
  std::vector<te::Buffer> buffers;
  std::vector<const te::VarNode*> vars;
  for (const te::Buffer& b : uses.buffers) {
    if (buffers_.contains(b.get())) buffers.push_back(b);
  }
  for (const te::VarNode* v : uses.vars) {
    if (v != n.var.get() && vars_.contains(v)) vars.push_back(v);
  }
  std::vector<llvm::Type*> fields(buffers.size(), b_.getPtrTy());
  for (const te::VarNode* v : vars) fields.push_back(vars_.at(v)->getType());
  llvm::StructType* closure_type = llvm::StructType::get(ctx_, fields);

  std::string name = absl::StrCat(kernel_name_, ".task", next_task_id_++);
  auto* task_type = llvm::FunctionType::get(
      b_.getInt32Ty(), {b_.getInt64Ty(), b_.getInt64Ty(), b_.getPtrTy()}, false);
  auto* task = llvm::Function::Create(task_type, llvm::GlobalValue::InternalLinkage, name, module_);
  SetFunctionAttributes(task);
  llvm::Argument* closure_arg = task->getArg(2);
  closure_arg->addAttr(llvm::Attribute::NoAlias);
  closure_arg->addAttr(llvm::Attribute::ReadOnly);

  // The task: its own frame (allocas per thread) and bindings loaded from
  // the closure; then the loop over [begin, end).
  llvm::IRBuilderBase::InsertPoint caller_ip = b_.saveIP();
  FunctionFrame* caller_frame = frame_;
  auto caller_vars = std::move(vars_);
  auto caller_buffers = std::move(buffers_);
  ValueCache caller_cache = std::move(cache_);
  vars_.clear();
  buffers_.clear();
  cache_ = ValueCache();
  FunctionFrame frame{task, llvm::BasicBlock::Create(ctx_, "entry", task), {}};
  frame_ = &frame;
  b_.SetInsertPoint(frame.entry);
  for (size_t i = 0; i < fields.size(); ++i) {
    llvm::Value* slot = b_.CreateStructGEP(closure_type, closure_arg, static_cast<unsigned>(i));
    llvm::Value* value = b_.CreateLoad(fields[i], slot);
    if (i < buffers.size()) {
      buffers_[buffers[i].get()] = value;
    } else {
      vars_[vars[i - buffers.size()]] = value;
    }
  }
  EmitLoop(n, task->getArg(0), task->getArg(1));
  b_.CreateRet(b_.getInt32(0));
  frame_ = caller_frame;
  vars_ = std::move(caller_vars);
  buffers_ = std::move(caller_buffers);
  cache_ = std::move(caller_cache);
  b_.restoreIP(caller_ip);

  // The call site: fill the closure, run the loop on the pool.
  llvm::AllocaInst* closure = CreateEntryAlloca(closure_type, 16, name + ".closure");
  for (size_t i = 0; i < fields.size(); ++i) {
    llvm::Value* value = i < buffers.size() ? buffers_.at(buffers[i].get())
                                            : vars_.at(vars[i - buffers.size()]);
    b_.CreateStore(value, b_.CreateStructGEP(closure_type, closure, static_cast<unsigned>(i)));
  }
  llvm::Value* result =
      b_.CreateCall(RuntimeParallelFor(), {b_.getInt64(n.extent), task, closure});
  EmitReturnOnError(result);
}

}  // namespace tuneforge::codegen
