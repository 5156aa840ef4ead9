// IrEmitter: LLVM types of DTypes, constants, lane matching.
#include "common/codegen/llvm/ir_emitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"

namespace tuneforge::codegen {
namespace {

llvm::Type* ScalarType(llvm::LLVMContext& ctx, te::ScalarType s, bool in_memory) {
  switch (s) {
    case te::ScalarType::kBool: return in_memory ? llvm::Type::getInt8Ty(ctx) : llvm::Type::getInt1Ty(ctx);
    case te::ScalarType::kInt8: return llvm::Type::getInt8Ty(ctx);
    case te::ScalarType::kInt32: return llvm::Type::getInt32Ty(ctx);
    case te::ScalarType::kInt64: return llvm::Type::getInt64Ty(ctx);
    case te::ScalarType::kFloat32: return llvm::Type::getFloatTy(ctx);
    case te::ScalarType::kFloat64: return llvm::Type::getDoubleTy(ctx);
  }
  return llvm::Type::getInt8Ty(ctx);
}

llvm::Type* WithLanes(llvm::Type* scalar, int lanes) {
  return lanes > 1 ? llvm::FixedVectorType::get(scalar, lanes) : scalar;
}

}  // namespace

IrEmitter::IrEmitter(llvm::Module& module, const Target& target)
    : ctx_(module.getContext()), module_(module), b_(module.getContext()), target_(target) {}

llvm::Type* IrEmitter::ValueType(te::DType t) {
  return WithLanes(ScalarType(ctx_, t.scalar, /*in_memory=*/false), t.lanes);
}

llvm::Type* IrEmitter::StorageType(te::DType t) {
  return WithLanes(ScalarType(ctx_, t.scalar, /*in_memory=*/true), t.lanes);
}

llvm::Value* IrEmitter::ConstantOf(te::DType t, int64_t value) {
  if (t.is_float()) return FloatConstantOf(t, static_cast<double>(value));
  llvm::Type* scalar = ValueType(t.element());
  if (t.is_bool()) value = value != 0 ? 1 : 0;
  llvm::Constant* c = llvm::ConstantInt::get(scalar, static_cast<uint64_t>(value), /*IsSigned=*/true);
  return t.lanes > 1 ? llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(t.lanes), c) : c;
}

llvm::Value* IrEmitter::FloatConstantOf(te::DType t, double value) {
  if (!t.is_float()) return ConstantOf(t, static_cast<int64_t>(value));
  llvm::Constant* c = llvm::ConstantFP::get(ValueType(t.element()), value);
  return t.lanes > 1 ? llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(t.lanes), c) : c;
}

llvm::Value* IrEmitter::MatchLanes(llvm::Value* v, int lanes) {
  if (lanes <= 1 || v->getType()->isVectorTy()) return v;
  return b_.CreateVectorSplat(lanes, v);
}

llvm::Value* IrEmitter::AllLanes(int lanes) {
  return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(lanes), b_.getTrue());
}

}  // namespace tuneforge::codegen
