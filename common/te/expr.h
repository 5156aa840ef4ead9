// The expression IR shared by every layer: tensor expressions (common/te), the
// lowered loop nest (common/lower) and code generation (common/codegen).
//
// Expressions are immutable trees of shared nodes. The set of node kinds is
// closed and listed once, in `ExprVariant`; code that handles "every kind"
// uses std::visit so the compiler reports a forgotten case.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "common/te/dtype.h"

namespace tuneforge::te {

struct ExprNode;
struct TensorNode;
struct BufferNode;
using Tensor = std::shared_ptr<const TensorNode>;
using Buffer = std::shared_ptr<const BufferNode>;

// A variable: loop index, reduction axis or symbolic value. Identity is the
// node's address; the name is only for printing.
struct VarNode {
  std::string name;
  DType dtype;
};
using Var = std::shared_ptr<const VarNode>;
Var MakeVar(std::string name, DType dtype = DType::Index());

// Nullable handle to an immutable expression node.
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  // Literals: int -> int64 index constant, float/double -> float32 constant.
  Expr(int value);      // NOLINT(google-explicit-constructor)
  Expr(int64_t value);  // NOLINT(google-explicit-constructor)
  Expr(float value);    // NOLINT(google-explicit-constructor)
  Expr(double value);   // NOLINT(google-explicit-constructor)
  Expr(const Var& var);  // NOLINT(google-explicit-constructor)

  explicit operator bool() const { return node_ != nullptr; }
  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  const ExprNode& operator*() const { return *node_; }
  DType dtype() const;
  template <class T>
  const T* as() const;
  // Same node (not structural equality; see StructurallyEqual in expr_util.h).
  bool same_as(const Expr& other) const { return node_ == other.node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

enum class BinOp : uint8_t {
  kAdd, kSub, kMul,
  kDiv,       // float division; truncating for integers (C semantics)
  kMod,       // truncating remainder (C semantics)
  kFloorDiv,  // rounds toward -inf: what index arithmetic uses
  kFloorMod,  // result has the sign of the divisor
  kMin, kMax,
  kEQ, kNE, kLT, kLE, kGT, kGE,
  kAnd, kOr,
};
const char* BinOpSymbol(BinOp op);  // "+", "//", "min", "<=", "&&", ...
bool IsComparison(BinOp op);
bool IsLogical(BinOp op);

// Math functions on floating-point values.
enum class Intrinsic : uint8_t {
  kExp, kLog, kSqrt, kRsqrt, kTanh, kSigmoid, kErf, kAbs, kFloor, kCeil, kRound, kPow,
};
const char* IntrinsicName(Intrinsic fn);
int IntrinsicArity(Intrinsic fn);

enum class Combiner : uint8_t { kSum, kMax, kMin };
const char* CombinerName(Combiner c);

// A loop axis of a compute op: the variable ranges over [0, extent).
struct IterVar {
  Var var;
  int64_t extent = 0;
};

// ---- Node kinds -----------------------------------------------------------
struct IntImm { int64_t value; };
struct FloatImm { double value; };
struct VarRef { Var var; };
struct Binary { BinOp op; Expr a, b; };
struct Not { Expr a; };
struct Select { Expr cond, true_value, false_value; };
struct Cast { Expr value; };  // to the node's dtype
struct Call { Intrinsic fn; std::vector<Expr> args; };
// Read of a tensor element, one index per dimension (tensor expressions).
struct TensorRead { Tensor tensor; std::vector<Expr> indices; };
// Reduction over `axes`; only legal as the whole body of a compute op.
// Iterations where `condition` (optional) is false are skipped.
struct Reduce { Combiner combiner; Expr source; std::vector<IterVar> axes; Expr condition; };
// Read of a buffer in the lowered program: one index per buffer dimension
// before flattening, one flat (possibly vector) index after.
struct BufferLoad { Buffer buffer; std::vector<Expr> indices; };
// Vector of lanes: base, base+stride, ... (vectorization).
struct Ramp { Expr base; int64_t stride; int lanes; };
// Vector of `lanes` copies of a scalar (vectorization).
struct Broadcast { Expr value; int lanes; };

using ExprVariant = std::variant<IntImm, FloatImm, VarRef, Binary, Not, Select, Cast, Call,
                                 TensorRead, Reduce, BufferLoad, Ramp, Broadcast>;

struct ExprNode {
  DType dtype;
  ExprVariant v;
};

template <class T>
const T* Expr::as() const {
  return node_ ? std::get_if<T>(&node_->v) : nullptr;
}
inline DType Expr::dtype() const { return node_->dtype; }

// ---- Construction -----------------------------------------------------------
// Constructors check nothing fatal: operands of different types are promoted
// (bool < int8 < int32 < int64 < float32 < float64, constants adopt the other
// side's type) so building never aborts; the parser reports type errors itself.
Expr IntConst(int64_t value, DType dtype = DType::Index());
Expr FloatConst(double value, DType dtype = DType::Float32());
Expr Const(double value, DType dtype);  // int or float constant of `dtype`
Expr MakeBinary(BinOp op, Expr a, Expr b);
Expr MakeNot(Expr a);
Expr MakeSelect(Expr cond, Expr t, Expr f);
Expr MakeCast(DType dtype, Expr value);
Expr MakeCall(Intrinsic fn, std::vector<Expr> args);
Expr MakeTensorRead(Tensor tensor, std::vector<Expr> indices);
Expr MakeReduce(Combiner c, Expr source, std::vector<IterVar> axes, Expr condition = Expr());
Expr MakeBufferLoad(Buffer buffer, std::vector<Expr> indices, DType dtype);
Expr MakeRamp(Expr base, int64_t stride, int lanes);
Expr MakeBroadcast(Expr value, int lanes);
// Identity element of a combiner in `dtype` (0, -inf/lowest, +inf/highest).
Expr CombinerIdentity(Combiner c, DType dtype);
// Applies a combiner to two values (a + b, max(a, b), min(a, b)).
Expr CombinerApply(Combiner c, Expr a, Expr b);

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // BinOp::kDiv
Expr operator-(Expr a);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
// Logical operators are functions, not && || !, so that `!expr` and
// `expr && expr` keep testing handles for null.
Expr LogicalAnd(Expr a, Expr b);
Expr LogicalOr(Expr a, Expr b);
Expr LogicalNot(Expr a);
Expr EQ(Expr a, Expr b);
Expr NE(Expr a, Expr b);
Expr FloorDiv(Expr a, Expr b);
Expr FloorMod(Expr a, Expr b);
Expr Min(Expr a, Expr b);
Expr Max(Expr a, Expr b);

// Reductions for operator definitions: sum(A(i, k) * B(k, j), {k}).
Expr Sum(Expr source, std::vector<IterVar> axes, Expr condition = Expr());
Expr MaxReduce(Expr source, std::vector<IterVar> axes, Expr condition = Expr());
Expr MinReduce(Expr source, std::vector<IterVar> axes, Expr condition = Expr());

// Constant value if `e` is an IntImm (after no simplification).
const int64_t* AsIntConst(const Expr& e);

}  // namespace tuneforge::te
