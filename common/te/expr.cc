#include "common/te/expr.h"

#include <cmath>
#include <limits>
#include <utility>

#include "common/te/op_semantics.h"
#include "common/te/tensor.h"

namespace tuneforge::te {
namespace {

Expr Make(DType dtype, ExprVariant v) {
  return Expr(std::make_shared<const ExprNode>(ExprNode{dtype, std::move(v)}));
}

int TypeRank(ScalarType s) {
  switch (s) {
    case ScalarType::kBool: return 0;
    case ScalarType::kInt8: return 1;
    case ScalarType::kInt32: return 2;
    case ScalarType::kInt64: return 3;
    case ScalarType::kFloat32: return 4;
    case ScalarType::kFloat64: return 5;
  }
  return 0;
}

bool IsConst(const Expr& e) { return e.as<IntImm>() || e.as<FloatImm>(); }

// Re-types a constant; other expressions get a Cast.
Expr ConvertTo(const Expr& e, DType t) {
  if (e.dtype() == t) return e;
  if (t.lanes == 1) {
    if (const auto* i = e.as<IntImm>()) return Const(static_cast<double>(i->value), t);
    if (const auto* f = e.as<FloatImm>()) return Const(f->value, t);
  }
  return MakeCast(t, e);
}

// Brings both operands to one type. A constant adopts the other side's type
// (so `x * 2` stays float32); otherwise the wider type wins.
void Promote(Expr& a, Expr& b) {
  DType ta = a.dtype(), tb = b.dtype();
  if (ta == tb) return;
  int lanes = std::max(ta.lanes, tb.lanes);
  ScalarType s;
  if (IsConst(a) && !IsConst(b)) {
    s = tb.scalar;
  } else if (IsConst(b) && !IsConst(a)) {
    s = ta.scalar;
  } else {
    s = TypeRank(ta.scalar) >= TypeRank(tb.scalar) ? ta.scalar : tb.scalar;
  }
  // A float constant never becomes an integer silently.
  if (IsConst(a) && a.dtype().is_float() && !DType{s, 1}.is_float()) s = ta.scalar;
  if (IsConst(b) && b.dtype().is_float() && !DType{s, 1}.is_float()) s = tb.scalar;
  DType target{s, 1};
  Expr ca = ConvertTo(a, target.with_lanes(ta.lanes)), cb = ConvertTo(b, target.with_lanes(tb.lanes));
  if (lanes > 1) {
    if (ca.dtype().lanes == 1) ca = MakeBroadcast(ca, lanes);
    if (cb.dtype().lanes == 1) cb = MakeBroadcast(cb, lanes);
  }
  a = ca;
  b = cb;
}

}  // namespace

Var MakeVar(std::string name, DType dtype) {
  return std::make_shared<const VarNode>(VarNode{std::move(name), dtype});
}

Expr::Expr(int value) : Expr(IntConst(value)) {}
Expr::Expr(int64_t value) : Expr(IntConst(value)) {}
Expr::Expr(float value) : Expr(FloatConst(value)) {}
Expr::Expr(double value) : Expr(FloatConst(value)) {}
Expr::Expr(const Var& var) : Expr(Make(var->dtype, VarRef{var})) {}

const char* BinOpSymbol(BinOp op) {
  switch (op) {
    case BinOp::kAdd: return "+";
    case BinOp::kSub: return "-";
    case BinOp::kMul: return "*";
    case BinOp::kDiv: return "/";
    case BinOp::kMod: return "%";
    case BinOp::kFloorDiv: return "//";
    case BinOp::kFloorMod: return "%%";
    case BinOp::kMin: return "min";
    case BinOp::kMax: return "max";
    case BinOp::kEQ: return "==";
    case BinOp::kNE: return "!=";
    case BinOp::kLT: return "<";
    case BinOp::kLE: return "<=";
    case BinOp::kGT: return ">";
    case BinOp::kGE: return ">=";
    case BinOp::kAnd: return "&&";
    case BinOp::kOr: return "||";
  }
  return "?";
}

// BinOpClass lives here, next to the operators' names (op_semantics.h
// declares it with the rest of the operators' meaning).
OpClass BinOpClass(BinOp op) {
  switch (op) {
    case BinOp::kAdd: case BinOp::kSub: case BinOp::kMul:
      return OpClass::kArithmetic;
    case BinOp::kDiv: case BinOp::kMod: case BinOp::kFloorDiv: case BinOp::kFloorMod:
      return OpClass::kDivision;
    case BinOp::kMin: case BinOp::kMax:
      return OpClass::kMinMax;
    case BinOp::kEQ: case BinOp::kNE: case BinOp::kLT: case BinOp::kLE: case BinOp::kGT:
    case BinOp::kGE:
      return OpClass::kComparison;
    case BinOp::kAnd: case BinOp::kOr:
      return OpClass::kLogical;
  }
  return OpClass::kArithmetic;  // not reached: the switch names every operator
}

bool IsComparison(BinOp op) { return BinOpClass(op) == OpClass::kComparison; }
bool IsLogical(BinOp op) { return BinOpClass(op) == OpClass::kLogical; }

const char* IntrinsicName(Intrinsic fn) {
  switch (fn) {
    case Intrinsic::kExp: return "exp";
    case Intrinsic::kLog: return "log";
    case Intrinsic::kSqrt: return "sqrt";
    case Intrinsic::kRsqrt: return "rsqrt";
    case Intrinsic::kTanh: return "tanh";
    case Intrinsic::kSigmoid: return "sigmoid";
    case Intrinsic::kErf: return "erf";
    case Intrinsic::kAbs: return "abs";
    case Intrinsic::kFloor: return "floor";
    case Intrinsic::kCeil: return "ceil";
    case Intrinsic::kRound: return "round";
    case Intrinsic::kPow: return "pow";
  }
  return "?";
}

int IntrinsicArity(Intrinsic fn) { return fn == Intrinsic::kPow ? 2 : 1; }

const char* CombinerName(Combiner c) {
  switch (c) {
    case Combiner::kSum: return "sum";
    case Combiner::kMax: return "max";
    case Combiner::kMin: return "min";
  }
  return "?";
}

Expr IntConst(int64_t value, DType dtype) { return Make(dtype, IntImm{value}); }
Expr FloatConst(double value, DType dtype) { return Make(dtype, FloatImm{value}); }
Expr Const(double value, DType dtype) {
  if (dtype.is_float()) return FloatConst(value, dtype);
  if (dtype.is_bool()) return IntConst(value != 0 ? 1 : 0, dtype);
  return IntConst(static_cast<int64_t>(value), dtype);
}

Expr MakeBinary(BinOp op, Expr a, Expr b) {
  Promote(a, b);
  DType t = a.dtype();
  if (IsComparison(op) || IsLogical(op)) t = DType{ScalarType::kBool, t.lanes};
  return Make(t, Binary{op, std::move(a), std::move(b)});
}

Expr MakeNot(Expr a) {
  DType t = a.dtype();
  return Make(DType{ScalarType::kBool, t.lanes}, Not{std::move(a)});
}

Expr MakeSelect(Expr cond, Expr t, Expr f) {
  Promote(t, f);
  DType dt = t.dtype();
  return Make(dt, Select{std::move(cond), std::move(t), std::move(f)});
}

Expr MakeCast(DType dtype, Expr value) {
  if (value.dtype() == dtype) return value;
  return Make(dtype, Cast{std::move(value)});
}

Expr MakeCall(Intrinsic fn, std::vector<Expr> args) {
  DType t = args.empty() ? DType::Float32() : args[0].dtype();
  if (!t.is_float()) {
    // Math functions work on floats: integer arguments become float32.
    for (Expr& a : args) a = MakeCast(DType{ScalarType::kFloat32, a.dtype().lanes}, a);
    t = args[0].dtype();
  }
  if (args.size() == 2) Promote(args[0], args[1]);
  t = args[0].dtype();  // read before the move below: argument order is unspecified
  return Make(t, Call{fn, std::move(args)});
}

Expr MakeTensorRead(Tensor tensor, std::vector<Expr> indices) {
  DType t = tensor->dtype;
  return Make(t, TensorRead{std::move(tensor), std::move(indices)});
}

Expr MakeReduce(Combiner c, Expr source, std::vector<IterVar> axes, Expr condition) {
  DType t = source.dtype();
  return Make(t, Reduce{c, std::move(source), std::move(axes), std::move(condition)});
}

Expr MakeBufferLoad(Buffer buffer, std::vector<Expr> indices, DType dtype) {
  return Make(dtype, BufferLoad{std::move(buffer), std::move(indices)});
}

Expr MakeRamp(Expr base, int64_t stride, int lanes) {
  DType t = base.dtype().with_lanes(lanes);
  return Make(t, Ramp{std::move(base), stride, lanes});
}

Expr MakeBroadcast(Expr value, int lanes) {
  DType t = value.dtype().with_lanes(lanes);
  return Make(t, Broadcast{std::move(value), lanes});
}

Expr CombinerIdentity(Combiner c, DType dtype) {
  switch (c) {
    case Combiner::kSum:
      return Const(0, dtype);
    case Combiner::kMax:
      if (dtype.is_float()) return FloatConst(-std::numeric_limits<double>::infinity(), dtype);
      if (dtype.scalar == ScalarType::kInt8) return IntConst(-128, dtype);
      if (dtype.scalar == ScalarType::kInt32) return IntConst(std::numeric_limits<int32_t>::min(), dtype);
      if (dtype.is_bool()) return IntConst(0, dtype);
      return IntConst(std::numeric_limits<int64_t>::min(), dtype);
    case Combiner::kMin:
      if (dtype.is_float()) return FloatConst(std::numeric_limits<double>::infinity(), dtype);
      if (dtype.scalar == ScalarType::kInt8) return IntConst(127, dtype);
      if (dtype.scalar == ScalarType::kInt32) return IntConst(std::numeric_limits<int32_t>::max(), dtype);
      if (dtype.is_bool()) return IntConst(1, dtype);
      return IntConst(std::numeric_limits<int64_t>::max(), dtype);
  }
  return Expr();
}

Expr CombinerApply(Combiner c, Expr a, Expr b) {
  switch (c) {
    case Combiner::kSum: return MakeBinary(BinOp::kAdd, std::move(a), std::move(b));
    case Combiner::kMax: return MakeBinary(BinOp::kMax, std::move(a), std::move(b));
    case Combiner::kMin: return MakeBinary(BinOp::kMin, std::move(a), std::move(b));
  }
  return Expr();
}

Expr operator+(Expr a, Expr b) { return MakeBinary(BinOp::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return MakeBinary(BinOp::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return MakeBinary(BinOp::kMul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return MakeBinary(BinOp::kDiv, std::move(a), std::move(b)); }
Expr operator-(Expr a) {
  DType t = a.dtype();
  return MakeBinary(BinOp::kSub, Const(0, t.element()), std::move(a));
}
Expr operator<(Expr a, Expr b) { return MakeBinary(BinOp::kLT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return MakeBinary(BinOp::kLE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return MakeBinary(BinOp::kGT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return MakeBinary(BinOp::kGE, std::move(a), std::move(b)); }
Expr LogicalAnd(Expr a, Expr b) { return MakeBinary(BinOp::kAnd, std::move(a), std::move(b)); }
Expr LogicalOr(Expr a, Expr b) { return MakeBinary(BinOp::kOr, std::move(a), std::move(b)); }
Expr LogicalNot(Expr a) { return MakeNot(std::move(a)); }
Expr EQ(Expr a, Expr b) { return MakeBinary(BinOp::kEQ, std::move(a), std::move(b)); }
Expr NE(Expr a, Expr b) { return MakeBinary(BinOp::kNE, std::move(a), std::move(b)); }
Expr FloorDiv(Expr a, Expr b) { return MakeBinary(BinOp::kFloorDiv, std::move(a), std::move(b)); }
Expr FloorMod(Expr a, Expr b) { return MakeBinary(BinOp::kFloorMod, std::move(a), std::move(b)); }
Expr Min(Expr a, Expr b) { return MakeBinary(BinOp::kMin, std::move(a), std::move(b)); }
Expr Max(Expr a, Expr b) { return MakeBinary(BinOp::kMax, std::move(a), std::move(b)); }

Expr Sum(Expr source, std::vector<IterVar> axes, Expr condition) {
  return MakeReduce(Combiner::kSum, std::move(source), std::move(axes), std::move(condition));
}
Expr MaxReduce(Expr source, std::vector<IterVar> axes, Expr condition) {
  return MakeReduce(Combiner::kMax, std::move(source), std::move(axes), std::move(condition));
}
Expr MinReduce(Expr source, std::vector<IterVar> axes, Expr condition) {
  return MakeReduce(Combiner::kMin, std::move(source), std::move(axes), std::move(condition));
}

const int64_t* AsIntConst(const Expr& e) {
  const auto* i = e.as<IntImm>();
  return i ? &i->value : nullptr;
}

}  // namespace tuneforge::te
