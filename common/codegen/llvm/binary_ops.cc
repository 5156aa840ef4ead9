// IrEmitter: arithmetic, division semantics, comparisons, min/max, logic.
#include <algorithm>
#include <limits>

#include "common/codegen/llvm/ir_emitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace tuneforge::codegen {
namespace {

bool IsDivision(te::BinOp op) {
  return op == te::BinOp::kDiv || op == te::BinOp::kMod || op == te::BinOp::kFloorDiv ||
         op == te::BinOp::kFloorMod;
}

// The divisor as a constant, looking through a Broadcast (vectorized code).
const int64_t* ConstantDivisor(const te::Expr& divisor) {
  if (const auto* b = divisor.as<te::Broadcast>()) return te::AsIntConst(b->value);
  return te::AsIntConst(divisor);
}

int64_t MaxValue(te::DType t) {
  switch (t.scalar) {
    case te::ScalarType::kInt8: return std::numeric_limits<int8_t>::max();
    case te::ScalarType::kInt32: return std::numeric_limits<int32_t>::max();
    default: return std::numeric_limits<int64_t>::max();
  }
}

}  // namespace

llvm::Value* IrEmitter::EmitNode(const te::Binary& n, te::DType t) {
  int lanes = std::max(n.a.dtype().lanes, n.b.dtype().lanes);
  te::DType operand = n.a.dtype().with_lanes(lanes);
  llvm::Value* a = MatchLanes(Emit(n.a), lanes);
  llvm::Value* b = MatchLanes(Emit(n.b), lanes);
  return Cached({ValueCache::Kind::kBinary, static_cast<int>(n.op), ValueType(t), a, b},
                [&] { return EmitBinary(n, a, b, operand); });
}

llvm::Value* IrEmitter::EmitBinary(const te::Binary& n, llvm::Value* a, llvm::Value* b,
                                   te::DType operand) {
  if (te::IsComparison(n.op)) return EmitCompare(n.op, a, b, operand);
  if (n.op == te::BinOp::kAnd) return b_.CreateAnd(a, b);
  if (n.op == te::BinOp::kOr) return b_.CreateOr(a, b);
  if (n.op == te::BinOp::kMin || n.op == te::BinOp::kMax) return EmitMinMax(n.op, a, b, operand);
  return EmitArithmetic(n.op, a, b, operand, n.b);
}

llvm::Value* IrEmitter::EmitArithmetic(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType t,
                                       const te::Expr& divisor) {
  if (t.is_float()) {
    // The builder carries the `contract` flag: fmul + fadd become FMAs.
    switch (op) {
      case te::BinOp::kAdd: return b_.CreateFAdd(a, b);
      case te::BinOp::kSub: return b_.CreateFSub(a, b);
      case te::BinOp::kMul: return b_.CreateFMul(a, b);
      case te::BinOp::kDiv: return b_.CreateFDiv(a, b);
      case te::BinOp::kMod: return b_.CreateFRem(a, b);  // fmod
      case te::BinOp::kFloorDiv:
        return EmitIntrinsic(llvm::Intrinsic::floor, {b_.CreateFDiv(a, b)});
      case te::BinOp::kFloorMod: {
        llvm::Value* q = EmitIntrinsic(llvm::Intrinsic::floor, {b_.CreateFDiv(a, b)});
        return b_.CreateFSub(a, b_.CreateFMul(q, b));
      }
      default: break;
    }
    return llvm::PoisonValue::get(a->getType());
  }
  // Index arithmetic (int64) never wraps in a valid program; saying so lets
  // LLVM reason about addresses. Narrow integers keep wrap-around semantics.
  bool no_signed_wrap = t.scalar == te::ScalarType::kInt64;
  switch (op) {
    case te::BinOp::kAdd: return b_.CreateAdd(a, b, "", false, no_signed_wrap);
    case te::BinOp::kSub: return b_.CreateSub(a, b, "", false, no_signed_wrap);
    case te::BinOp::kMul: return b_.CreateMul(a, b, "", false, no_signed_wrap);
    default: break;
  }
  if (IsDivision(op)) return EmitIntDivision(op, a, b, t, divisor);
  return llvm::PoisonValue::get(a->getType());
}

llvm::Value* IrEmitter::EmitIntDivision(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType t,
                                        const te::Expr& divisor) {
  const int64_t* constant = ConstantDivisor(divisor);
  bool floor_op = op == te::BinOp::kFloorDiv || op == te::BinOp::kFloorMod;
  if (floor_op && constant && *constant > 0 && *constant <= MaxValue(t)) {
    return EmitFloorDivisionByConstant(op, a, *constant, t);
  }
  // Lanes masked off by a vector select may hold a zero divisor.
  if (mask_ && t.lanes > 1 && !constant) {
    b = b_.CreateSelect(MatchLanes(mask_, t.lanes), b, ConstantOf(t, 1));
  }
  llvm::Value* q = b_.CreateSDiv(a, b);
  llvm::Value* r = b_.CreateSRem(a, b);
  if (op == te::BinOp::kDiv) return q;
  if (op == te::BinOp::kMod) return r;
  // Truncation rounded toward zero; floor differs when the remainder is
  // non-zero and its sign differs from the divisor's.
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* signs_differ = b_.CreateICmpSLT(b_.CreateXor(r, b), zero);
  llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), signs_differ);
  if (op == te::BinOp::kFloorDiv) return b_.CreateSub(q, b_.CreateZExt(adjust, q->getType()));
  return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
}

// The common case of index arithmetic: a positive constant divisor. Powers
// of two are a shift / mask; otherwise a negative remainder is corrected
// (LLVM removes the correction when the dividend is known non-negative).
llvm::Value* IrEmitter::EmitFloorDivisionByConstant(te::BinOp op, llvm::Value* a, int64_t divisor,
                                                    te::DType t) {
  bool floor_div = op == te::BinOp::kFloorDiv;
  if ((divisor & (divisor - 1)) == 0) {
    int shift = 0;
    while ((int64_t{1} << shift) < divisor) ++shift;
    if (floor_div) return b_.CreateAShr(a, ConstantOf(t, shift));
    return b_.CreateAnd(a, ConstantOf(t, divisor - 1));
  }
  llvm::Value* d = ConstantOf(t, divisor);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* r = b_.CreateSRem(a, d);
  llvm::Value* negative = b_.CreateICmpSLT(r, zero);
  if (floor_div) return b_.CreateSub(b_.CreateSDiv(a, d), b_.CreateZExt(negative, a->getType()));
  return b_.CreateSelect(negative, b_.CreateAdd(r, d), r);
}

llvm::Value* IrEmitter::EmitCompare(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType t) {
  using P = llvm::CmpInst::Predicate;
  if (t.is_float()) {
    // Ordered compares, except != which is true for NaN (as in C).
    P p = P::FCMP_OEQ;
    switch (op) {
      case te::BinOp::kEQ: p = P::FCMP_OEQ; break;
      case te::BinOp::kNE: p = P::FCMP_UNE; break;
      case te::BinOp::kLT: p = P::FCMP_OLT; break;
      case te::BinOp::kLE: p = P::FCMP_OLE; break;
      case te::BinOp::kGT: p = P::FCMP_OGT; break;
      case te::BinOp::kGE: p = P::FCMP_OGE; break;
      default: break;
    }
    return b_.CreateFCmp(p, a, b);
  }
  // Integers are signed; bools order false < true.
  bool is_signed = !t.is_bool();
  P p = P::ICMP_EQ;
  switch (op) {
    case te::BinOp::kEQ: p = P::ICMP_EQ; break;
    case te::BinOp::kNE: p = P::ICMP_NE; break;
    case te::BinOp::kLT: p = is_signed ? P::ICMP_SLT : P::ICMP_ULT; break;
    case te::BinOp::kLE: p = is_signed ? P::ICMP_SLE : P::ICMP_ULE; break;
    case te::BinOp::kGT: p = is_signed ? P::ICMP_SGT : P::ICMP_UGT; break;
    case te::BinOp::kGE: p = is_signed ? P::ICMP_SGE : P::ICMP_UGE; break;
    default: break;
  }
  return b_.CreateICmp(p, a, b);
}

llvm::Value* IrEmitter::EmitMinMax(te::BinOp op, llvm::Value* a, llvm::Value* b, te::DType t) {
  bool is_min = op == te::BinOp::kMin;
  if (t.is_float()) {
    // std::min(a, b) = b < a ? b : a; std::max(a, b) = a < b ? b : a. The
    // same select in scalar and vector code (x86 minps/maxps semantics).
    llvm::Value* take_b = is_min ? b_.CreateFCmpOLT(b, a) : b_.CreateFCmpOLT(a, b);
    return b_.CreateSelect(take_b, b, a);
  }
  if (t.is_bool()) return is_min ? b_.CreateAnd(a, b) : b_.CreateOr(a, b);
  return b_.CreateBinaryIntrinsic(is_min ? llvm::Intrinsic::smin : llvm::Intrinsic::smax, a, b);
}

}  // namespace tuneforge::codegen
