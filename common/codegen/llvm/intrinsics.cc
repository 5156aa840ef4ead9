// IrEmitter: math functions. float32 exp, log, tanh, sigmoid and erf as inline
// polynomials (vector_math.h: vector speed, cost independent of the data);
// otherwise LLVM intrinsics where they exist (the backend turns vector ones
// into instructions or per-lane libm calls), libm calls per lane.
#include "common/codegen/llvm/ir_emitter.h"
#include "common/codegen/llvm/vector_math.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace tuneforge::codegen {

llvm::Value* IrEmitter::EmitIntrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value*> args) {
  llvm::Function* fn = llvm::Intrinsic::getDeclaration(&module_, id, {args[0]->getType()});
  return b_.CreateCall(fn, args);
}

llvm::Value* IrEmitter::EmitPerLaneLibmCall(const char* float_name, const char* double_name,
                                            llvm::Value* arg, te::DType t) {
  llvm::Type* scalar = ValueType(t.element());
  const char* name = t.scalar == te::ScalarType::kFloat64 ? double_name : float_name;
  auto* fn_type = llvm::FunctionType::get(scalar, {scalar}, false);
  llvm::FunctionCallee callee = module_.getOrInsertFunction(name, fn_type);
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    fn->setDoesNotAccessMemory();  // libm reports nothing through errno we read
    fn->setWillReturn();
  }
  if (t.lanes == 1) return b_.CreateCall(callee, {arg});
  llvm::Value* result = llvm::PoisonValue::get(arg->getType());
  for (int i = 0; i < t.lanes; ++i) {
    llvm::Value* lane = b_.CreateCall(callee, {b_.CreateExtractElement(arg, i)});
    result = b_.CreateInsertElement(result, lane, i);
  }
  return result;
}

llvm::Value* IrEmitter::EmitNode(const te::Call& n, te::DType t) {
  std::vector<llvm::Value*> args;
  for (const te::Expr& a : n.args) args.push_back(MatchLanes(Emit(a), t.lanes));
  return Cached({ValueCache::Kind::kCall, static_cast<int>(n.fn), ValueType(t), args[0],
                 args.size() > 1 ? args[1] : nullptr},
                [&] { return EmitMath(n.fn, args, t); });
}

llvm::Value* IrEmitter::EmitMath(te::Intrinsic fn, const std::vector<llvm::Value*>& args,
                                 te::DType t) {
  llvm::Value* x = args[0];
  llvm::Value* one = FloatConstantOf(t, 1.0);
  const bool f32 = t.scalar == te::ScalarType::kFloat32;
  auto exp = [&](llvm::Value* v) {
    return f32 ? EmitExpF32(b_, v) : EmitIntrinsic(llvm::Intrinsic::exp, {v});
  };
  switch (fn) {
    case te::Intrinsic::kExp: return exp(x);
    case te::Intrinsic::kLog: return f32 ? EmitLogF32(b_, x) : EmitIntrinsic(llvm::Intrinsic::log, {x});
    case te::Intrinsic::kSqrt: return EmitIntrinsic(llvm::Intrinsic::sqrt, {x});
    case te::Intrinsic::kRsqrt:
      return b_.CreateFDiv(one, EmitIntrinsic(llvm::Intrinsic::sqrt, {x}));
    case te::Intrinsic::kTanh:
      return f32 ? EmitTanhF32(b_, x) : EmitIntrinsic(llvm::Intrinsic::tanh, {x});
    case te::Intrinsic::kSigmoid: {
      // e = exp(-|x|) never overflows: 1 / (1 + e) for x >= 0, e / (1 + e)
      // below, which keeps the tiny results of large negative x.
      llvm::Value* e = exp(b_.CreateFNeg(EmitIntrinsic(llvm::Intrinsic::fabs, {x})));
      llvm::Value* numerator = b_.CreateSelect(b_.CreateFCmpOLT(x, FloatConstantOf(t, 0.0)), e, one);
      return b_.CreateFDiv(numerator, b_.CreateFAdd(one, e));
    }
    case te::Intrinsic::kErf:
      return f32 ? EmitErfF32(b_, x) : EmitPerLaneLibmCall("erff", "erf", x, t);
    case te::Intrinsic::kAbs:
      if (t.is_int()) {
        return b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b_.getFalse());
      }
      return EmitIntrinsic(llvm::Intrinsic::fabs, {x});
    case te::Intrinsic::kFloor: return EmitIntrinsic(llvm::Intrinsic::floor, {x});
    case te::Intrinsic::kCeil: return EmitIntrinsic(llvm::Intrinsic::ceil, {x});
    case te::Intrinsic::kRound: return EmitIntrinsic(llvm::Intrinsic::round, {x});  // half away from 0
    case te::Intrinsic::kPow: return EmitIntrinsic(llvm::Intrinsic::pow, {x, args[1]});
  }
  return llvm::PoisonValue::get(ValueType(t));
}

}  // namespace tuneforge::codegen
