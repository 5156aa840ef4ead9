// IrEmitter: expressions other than binary operators, calls and loads.
#include <variant>

#include "common/codegen/llvm/ir_emitter.h"
#include "common/te/expr_util.h"
#include "llvm/IR/Constants.h"

namespace tuneforge::codegen {

llvm::Value* IrEmitter::Emit(const te::Expr& e) {
  te::DType t = e.dtype();
  return std::visit([&](const auto& node) { return EmitNode(node, t); }, e->v);
}

llvm::Value* IrEmitter::EmitNode(const te::IntImm& n, te::DType t) { return ConstantOf(t, n.value); }

llvm::Value* IrEmitter::EmitNode(const te::FloatImm& n, te::DType t) {
  return FloatConstantOf(t, n.value);
}

llvm::Value* IrEmitter::EmitNode(const te::VarRef& n, te::DType t) {
  return MatchLanes(vars_.at(n.var.get()), t.lanes);
}

llvm::Value* IrEmitter::EmitNode(const te::Not& n, te::DType t) {
  llvm::Value* a = MatchLanes(Emit(n.a), t.lanes);
  return Cached({ValueCache::Kind::kNot, 0, a->getType(), a}, [&] { return b_.CreateNot(a); });
}

// Under a per-lane condition a padded read A[i-1] (i >= 1) is guarded only
// where i's range reaches the border: a padded conv's interior rows read
// inside the image for every value of their loops, and as plain loads and a
// blend they cost LLVM a fraction of a masked load's lowering (a 7x7 stem's
// stride-2 rows spread their masks over 64-lane spans). Under a condition
// for all lanes every load keeps its branch, in bounds or not: LLVM merges
// the branches of one test and folds their loads into the FMAs' broadcasts,
// where a select of the loaded value would stand between them.
bool IrEmitter::NeedsGuard(const te::Expr& e, bool per_lane) const {
  if (const auto* load = e.as<te::BufferLoad>()) {
    if (!per_lane || !InBounds(load->buffer, load->indices[0])) return true;
  } else if (const auto* bin = e.as<te::Binary>()) {
    bool division = bin->op == te::BinOp::kDiv || bin->op == te::BinOp::kMod ||
                    bin->op == te::BinOp::kFloorDiv || bin->op == te::BinOp::kFloorMod;
    bool constant = bin->b.as<te::IntImm>() || bin->b.as<te::FloatImm>();
    if (division && !bin->b.dtype().is_float() && !constant) return true;
  }
  bool found = false;
  te::ForEachChild(e, [&](const te::Expr& c) { found = found || NeedsGuard(c, per_lane); });
  return found;
}

llvm::Value* IrEmitter::EmitNode(const te::Select& n, te::DType t) {
  const bool per_lane = n.cond.dtype().lanes > 1;
  if (NeedsGuard(n.true_value, per_lane) || NeedsGuard(n.false_value, per_lane)) return EmitGuardedSelect(n, t);
  llvm::Value* cond = Emit(n.cond);
  llvm::Value* on_true = MatchLanes(Emit(n.true_value), t.lanes);
  llvm::Value* on_false = MatchLanes(Emit(n.false_value), t.lanes);
  return Cached({ValueCache::Kind::kSelect, 0, on_true->getType(), cond, on_true, on_false},
                [&] { return b_.CreateSelect(cond, on_true, on_false); });
}

llvm::Value* IrEmitter::EmitGuardedSelect(const te::Select& n, te::DType t) {
  llvm::Value* cond = Emit(n.cond);
  if (!cond->getType()->isVectorTy()) {
    // One condition for all lanes: branch around the arm not taken.
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    auto* then_bb = llvm::BasicBlock::Create(ctx_, "select.true", fn);
    auto* else_bb = llvm::BasicBlock::Create(ctx_, "select.false", fn);
    auto* merge_bb = llvm::BasicBlock::Create(ctx_, "select.end", fn);
    b_.CreateCondBr(cond, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    cache_.PushScope();
    llvm::Value* on_true = MatchLanes(Emit(n.true_value), t.lanes);
    cache_.PopScope();
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(merge_bb);
    b_.SetInsertPoint(else_bb);
    cache_.PushScope();
    llvm::Value* on_false = MatchLanes(Emit(n.false_value), t.lanes);
    cache_.PopScope();
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(merge_bb);
    b_.SetInsertPoint(merge_bb);
    llvm::PHINode* phi = b_.CreatePHI(ValueType(t), 2, "select");
    phi->addIncoming(on_true, then_end);
    phi->addIncoming(on_false, else_end);
    return phi;
  }
  // Per-lane condition: each arm is emitted with loads masked to its lanes.
  llvm::Value* outer = mask_;
  llvm::Value* not_cond = b_.CreateNot(cond);
  mask_ = outer ? b_.CreateAnd(outer, cond) : cond;
  llvm::Value* on_true = MatchLanes(Emit(n.true_value), t.lanes);
  mask_ = outer ? b_.CreateAnd(outer, not_cond) : not_cond;
  llvm::Value* on_false = MatchLanes(Emit(n.false_value), t.lanes);
  mask_ = outer;
  return b_.CreateSelect(cond, on_true, on_false);
}

llvm::Value* IrEmitter::EmitNode(const te::Cast& n, te::DType t) {
  llvm::Value* v = Emit(n.value);
  return Cached({ValueCache::Kind::kCast, 0, ValueType(t), v},
                [&] { return EmitCast(v, n.value.dtype(), t); });
}

llvm::Value* IrEmitter::EmitCast(llvm::Value* v, te::DType from, te::DType to) {
  v = MatchLanes(v, to.lanes);
  if (from.scalar == to.scalar) return v;
  llvm::Type* dst = ValueType(to);
  if (to.is_bool()) {
    llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
    return from.is_float() ? b_.CreateFCmpUNE(v, zero) : b_.CreateICmpNE(v, zero);
  }
  if (from.is_bool()) return to.is_float() ? b_.CreateUIToFP(v, dst) : b_.CreateZExt(v, dst);
  if (from.is_int() && to.is_int()) return b_.CreateSExtOrTrunc(v, dst);
  if (from.is_int()) return b_.CreateSIToFP(v, dst);
  if (to.is_int()) return b_.CreateFPToSI(v, dst);  // rounds toward zero
  return b_.CreateFPCast(v, dst);
}

llvm::Value* IrEmitter::EmitNode(const te::Ramp& n, te::DType t) {
  llvm::Value* scalar_base = Emit(n.base);
  return Cached({ValueCache::Kind::kRamp, 0, ValueType(t), scalar_base, nullptr, nullptr, n.stride},
                [&] { return EmitRamp(scalar_base, n.stride, t); });
}

llvm::Value* IrEmitter::EmitRamp(llvm::Value* scalar_base, int64_t stride, te::DType t) {
  int lanes = t.lanes;
  llvm::Value* base = b_.CreateVectorSplat(lanes, scalar_base);
  std::vector<llvm::Constant*> steps;
  auto* scalar = llvm::cast<llvm::IntegerType>(ValueType(t.element()));
  for (int i = 0; i < lanes; ++i) {
    steps.push_back(llvm::ConstantInt::get(scalar, static_cast<uint64_t>(stride * i), true));
  }
  bool index_math = t.scalar == te::ScalarType::kInt64;
  return b_.CreateAdd(base, llvm::ConstantVector::get(steps), "ramp", false, index_math);
}

llvm::Value* IrEmitter::EmitNode(const te::Broadcast& n, te::DType t) {
  llvm::Value* v = Emit(n.value);
  return Cached({ValueCache::Kind::kBroadcast, 0, ValueType(t), v},
                [&] { return b_.CreateVectorSplat(n.lanes, v); });
}

// Validation rejects these before emission; a poison value keeps the
// emitter total without a fatal check.
llvm::Value* IrEmitter::EmitNode(const te::TensorRead&, te::DType t) {
  return llvm::PoisonValue::get(ValueType(t));
}
llvm::Value* IrEmitter::EmitNode(const te::Reduce&, te::DType t) {
  return llvm::PoisonValue::get(ValueType(t));
}

}  // namespace tuneforge::codegen
