// IrEmitter: statements. Loops are emitted in rotated form (guard, body,
// latch test at the bottom), which is what LLVM's loop passes expect.
#include <optional>
#include <variant>

#include "common/codegen/llvm/ir_emitter.h"
#include "common/overloaded.h"
#include "common/te/buffer.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Metadata.h"

namespace tuneforge::codegen {

void IrEmitter::EmitStmt(const lower::Stmt& s) {
  if (!s) return;
  std::visit(Overloaded{
                 [&](const lower::For& n) { EmitFor(n); },
                 [&](const lower::Store& n) { EmitStore(n); },
                 [&](const lower::Allocate& n) { EmitAllocate(n); },
                 [&](const lower::IfThenElse& n) { EmitIf(n); },
                 [&](const lower::Seq& n) {
                   for (const lower::Stmt& c : n.stmts) EmitStmt(c);
                 },
                 [&](const lower::LetStmt& n) { EmitLet(n); },
             },
             s.get()->v);
}

void IrEmitter::EmitFor(const lower::For& n) {
  if (n.extent <= 0) return;
  if (n.kind == lower::ForKind::kParallel) {
    EmitParallelFor(n);
    return;
  }
  EmitLoop(n, b_.getInt64(0), b_.getInt64(n.extent));
}

llvm::MDNode* IrEmitter::LoopMetadata(lower::ForKind kind) {
  std::vector<llvm::Metadata*> hints;
  hints.push_back(nullptr);  // the self reference every loop ID starts with
  auto flag = [&](const char* name) {
    hints.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, name)}));
  };
  auto bool_hint = [&](const char* name, bool value = true) {
    hints.push_back(llvm::MDNode::get(
        ctx_, {llvm::MDString::get(ctx_, name), llvm::ConstantAsMetadata::get(b_.getInt1(value))}));
  };
  flag("llvm.loop.mustprogress");
  if (kind == lower::ForKind::kVectorized) bool_hint("llvm.loop.vectorize.enable");
  if (kind == lower::ForKind::kUnrolled) flag("llvm.loop.unroll.full");
  if (kind == lower::ForKind::kRolled) {
    flag("llvm.loop.unroll.disable");
    bool_hint("llvm.loop.vectorize.enable", false);
  }
  llvm::MDNode* id = llvm::MDNode::getDistinct(ctx_, hints);
  id->replaceOperandWith(0, id);
  return id;
}

void IrEmitter::EmitLoop(const lower::For& n, llvm::Value* begin, llvm::Value* end) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* preheader = b_.GetInsertBlock();
  auto* body_bb = llvm::BasicBlock::Create(ctx_, n.var->name, fn);
  auto* exit_bb = llvm::BasicBlock::Create(ctx_, n.var->name + ".end", fn);
  // Constant bounds are known non-empty (EmitFor); dynamic ones need a guard.
  if (llvm::isa<llvm::Constant>(begin) && llvm::isa<llvm::Constant>(end)) {
    b_.CreateBr(body_bb);
  } else {
    b_.CreateCondBr(b_.CreateICmpSLT(begin, end), body_bb, exit_bb);
  }
  b_.SetInsertPoint(body_bb);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, n.var->name);
  i->addIncoming(begin, preheader);
  llvm::Type* var_type = ValueType(n.var->dtype);
  llvm::Value* saved = vars_.contains(n.var.get()) ? vars_[n.var.get()] : nullptr;
  vars_[n.var.get()] = b_.CreateSExtOrTrunc(i, var_type);
  std::optional<te::arith::IntInterval> saved_range = BindRange(n.var.get(), te::arith::IntInterval{0, n.extent - 1});
  cache_.PushScope();
  EmitStmt(n.body);
  cache_.PopScope();
  RestoreRange(n.var.get(), saved_range);
  llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), n.var->name + ".next", true, true);
  llvm::BranchInst* latch = b_.CreateCondBr(b_.CreateICmpSLT(next, end), body_bb, exit_bb);
  latch->setMetadata(llvm::LLVMContext::MD_loop, LoopMetadata(n.kind));
  i->addIncoming(next, b_.GetInsertBlock());
  b_.SetInsertPoint(exit_bb);
  if (saved) {
    vars_[n.var.get()] = saved;
  } else {
    vars_.erase(n.var.get());
  }
}

std::optional<te::arith::IntInterval> IrEmitter::BindRange(const te::VarNode* var,
                                                           std::optional<te::arith::IntInterval> range) {
  std::optional<te::arith::IntInterval> saved;
  if (auto it = var_bounds_.find(var); it != var_bounds_.end()) saved = it->second;
  RestoreRange(var, range);
  return saved;
}

void IrEmitter::RestoreRange(const te::VarNode* var, std::optional<te::arith::IntInterval> saved) {
  if (saved) {
    var_bounds_[var] = *saved;
  } else {
    var_bounds_.erase(var);
  }
}

void IrEmitter::EmitAllocate(const lower::Allocate& n) {
  te::DType element = n.buffer->dtype.element();
  int64_t count = n.buffer->alloc_elements();
  int64_t bytes = count * element.bytes();
  llvm::Value* saved = buffers_.contains(n.buffer.get()) ? buffers_[n.buffer.get()] : nullptr;
  bool on_heap = bytes > kMaxStackTemporaryBytes;
  if (!on_heap) {
    auto* type = llvm::ArrayType::get(StorageType(element), static_cast<uint64_t>(count));
    buffers_[n.buffer.get()] = CreateEntryAlloca(type, 64, n.buffer->name);
    EmitStmt(n.body);
  } else {
    llvm::Value* ptr = b_.CreateCall(RuntimeAlloc(), {b_.getInt64(bytes)}, n.buffer->name);
    // Null: give up with 1 (no temporaries of this one to free yet).
    EmitReturnOnError(b_.CreateZExt(b_.CreateIsNull(ptr), b_.getInt32Ty()));
    frame_->heap_temporaries.push_back(ptr);
    buffers_[n.buffer.get()] = ptr;
    EmitStmt(n.body);
    frame_->heap_temporaries.pop_back();
    b_.CreateCall(RuntimeFree(), {ptr});
  }
  if (saved) {
    buffers_[n.buffer.get()] = saved;
  } else {
    buffers_.erase(n.buffer.get());
  }
}

void IrEmitter::EmitIf(const lower::IfThenElse& n) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::Value* cond = Emit(n.condition);
  auto* then_bb = llvm::BasicBlock::Create(ctx_, "if.then", fn);
  auto* end_bb = llvm::BasicBlock::Create(ctx_, "if.end", fn);
  llvm::BasicBlock* else_bb = n.else_case ? llvm::BasicBlock::Create(ctx_, "if.else", fn) : end_bb;
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  cache_.PushScope();
  EmitStmt(n.then_case);
  cache_.PopScope();
  b_.CreateBr(end_bb);
  if (n.else_case) {
    b_.SetInsertPoint(else_bb);
    cache_.PushScope();
    EmitStmt(n.else_case);
    cache_.PopScope();
    b_.CreateBr(end_bb);
  }
  b_.SetInsertPoint(end_bb);
}

void IrEmitter::EmitLet(const lower::LetStmt& n) {
  llvm::Value* value = Emit(n.value);
  llvm::Value* saved = vars_.contains(n.var.get()) ? vars_[n.var.get()] : nullptr;
  vars_[n.var.get()] = value;
  std::optional<te::arith::IntInterval> saved_range =
      BindRange(n.var.get(), te::arith::ConstBounds(n.value, var_bounds_));
  EmitStmt(n.body);
  RestoreRange(n.var.get(), saved_range);
  if (saved) {
    vars_[n.var.get()] = saved;
  } else {
    vars_.erase(n.var.get());
  }
}

void IrEmitter::EmitReturnOnError(llvm::Value* code) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  auto* fail_bb = llvm::BasicBlock::Create(ctx_, "error", fn);
  auto* ok_bb = llvm::BasicBlock::Create(ctx_, "ok", fn);
  llvm::Value* failed = b_.CreateICmpNE(code, llvm::Constant::getNullValue(code->getType()));
  // Errors are rare: tell the optimizer so the hot path stays straight.
  llvm::MDBuilder md(ctx_);
  b_.CreateCondBr(failed, fail_bb, ok_bb, md.createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(fail_bb);
  for (auto it = frame_->heap_temporaries.rbegin(); it != frame_->heap_temporaries.rend(); ++it) {
    b_.CreateCall(RuntimeFree(), {*it});
  }
  b_.CreateRet(b_.CreateZExtOrTrunc(code, b_.getInt32Ty()));
  b_.SetInsertPoint(ok_bb);
}

}  // namespace tuneforge::codegen
