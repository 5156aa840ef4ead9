// Unary and binary elementwise ops, variadic Max/Min/Sum/Mean, Clip,
// LeakyRelu, HardSigmoid and Cast.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "graph/onnx/converters.h"
#include "graph/onnx/tensor_proto.h"

namespace tuneforge::graph::onnx_import {
namespace {

UnaryKind UnaryOf(const std::string& op) {
  if (op == "Relu") return UnaryKind::kRelu;
  if (op == "Sigmoid") return UnaryKind::kSigmoid;
  if (op == "Tanh") return UnaryKind::kTanh;
  if (op == "Erf") return UnaryKind::kErf;
  if (op == "Sqrt") return UnaryKind::kSqrt;
  if (op == "Exp") return UnaryKind::kExp;
  if (op == "Log") return UnaryKind::kLog;
  if (op == "Abs") return UnaryKind::kAbs;
  if (op == "Neg") return UnaryKind::kNeg;
  if (op == "Reciprocal") return UnaryKind::kReciprocal;
  if (op == "Floor") return UnaryKind::kFloor;
  if (op == "Ceil") return UnaryKind::kCeil;
  return UnaryKind::kHardSwish;
}

BinaryKind BinaryOf(const std::string& op) {
  if (op == "Add") return BinaryKind::kAdd;
  if (op == "Sub") return BinaryKind::kSub;
  if (op == "Mul") return BinaryKind::kMul;
  if (op == "Div") return BinaryKind::kDiv;
  if (op == "Pow") return BinaryKind::kPow;
  if (op == "Max") return BinaryKind::kMax;
  if (op == "Sum" || op == "Mean") return BinaryKind::kAdd;
  return BinaryKind::kMin;
}

bool FloatOnly(UnaryKind k) {
  return k != UnaryKind::kRelu && k != UnaryKind::kAbs && k != UnaryKind::kNeg;
}

absl::Status AddSameShape(ImportContext& ctx, Op op) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  return ctx.AddNode(std::move(op), {*x}, v.dtype, v.shape).status();
}

// Before opset 7, Add/Sub/Mul/Div/Pow broadcast only with broadcast=1, B's
// dimensions lining up with A's from `axis` on (default: A's last ones).
// Reshaping B with trailing 1s makes numpy broadcasting do the same.
absl::StatusOr<ValueId> LegacyBroadcast(ImportContext& ctx, ValueId b) {
  auto broadcast = ctx.Int("broadcast", 0);
  auto axis = ctx.Int("axis", -1);
  if (!broadcast.ok()) return broadcast.status();
  if (!axis.ok()) return axis.status();
  auto a = ctx.Input(0);
  if (!a.ok()) return a.status();
  const Value va = ctx.value(*a), vb = ctx.value(b);
  if (!*broadcast || *axis < 0) return b;
  int64_t trailing = static_cast<int64_t>(va.shape.size()) - *axis - static_cast<int64_t>(vb.shape.size());
  if (trailing < 0) return ctx.Invalid("B does not fit in A at the given axis");
  if (trailing == 0) return b;
  std::vector<int64_t> shape = vb.shape;
  shape.insert(shape.end(), trailing, 1);
  return ctx.AddInternal(Reshape{}, {b}, vb.dtype, shape, "broadcast");
}

// Folds the inputs pairwise; Mean divides the sum by their count.
absl::Status ConvertVariadic(ImportContext& ctx) {
  BinaryKind kind = BinaryOf(ctx.node().op_type());
  const bool mean = ctx.node().op_type() == "Mean";
  std::vector<ValueId> inputs;
  for (int i = 0; i < ctx.node().input_size(); ++i) {
    if (!ctx.HasInput(i)) continue;
    auto in = ctx.Input(i);
    if (!in.ok()) return in.status();
    inputs.push_back(*in);
  }
  if (inputs.empty()) return ctx.Invalid("needs at least one input");
  if (mean && !ctx.value(inputs[0]).dtype.is_float()) return ctx.Unsupported("needs float inputs");
  ValueId acc = inputs[0];
  for (size_t i = 1; i < inputs.size(); ++i) {
    const Value& a = ctx.value(acc);
    const Value& b = ctx.value(inputs[i]);
    if (a.dtype != b.dtype) return ctx.Invalid("inputs have different types");
    auto shape = BroadcastShapes(ctx, a.shape, b.shape);
    if (!shape.ok()) return shape.status();
    auto next = i + 1 == inputs.size() && !mean
                    ? ctx.AddNode(Binary{kind}, {acc, inputs[i]}, a.dtype, *shape)
                    : ctx.AddInternal(Binary{kind}, {acc, inputs[i]}, a.dtype, *shape, "fold");
    if (!next.ok()) return next.status();
    acc = *next;
  }
  if (inputs.size() == 1) return ctx.Alias(acc);
  if (!mean) return absl::OkStatus();
  const Value sum = ctx.value(acc);
  auto n = ScalarConstant(ctx, static_cast<double>(inputs.size()), sum.dtype, "count");
  if (!n.ok()) return n.status();
  return ctx.AddNode(Binary{BinaryKind::kDiv}, {acc, *n}, sum.dtype, sum.shape).status();
}

}  // namespace

absl::Status ConvertUnary(ImportContext& ctx) {
  UnaryKind kind = UnaryOf(ctx.node().op_type());
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  if (FloatOnly(kind) && !ctx.value(*x).dtype.is_float())
    return ctx.Unsupported("needs a float input");
  return AddSameShape(ctx, Unary{kind});
}

absl::Status ConvertBinary(ImportContext& ctx) {
  // Max, Min, Sum and Mean take any number of inputs: one is the identity,
  // more fold pairwise.
  const std::string& type = ctx.node().op_type();
  const bool pairwise = type == "Max" || type == "Min";
  if (type == "Sum" || type == "Mean" || (pairwise && ctx.num_inputs() != 2))
    return ConvertVariadic(ctx);
  if (ctx.num_inputs() != 2) return ctx.Invalid("needs two inputs");
  auto a = ctx.Input(0);
  if (!a.ok()) return a.status();
  auto b = ctx.Input(1);
  if (!b.ok()) return b.status();
  const Value va = ctx.value(*a);  // copies: adding nodes may move the values
  Value vb = ctx.value(*b);
  BinaryKind kind = BinaryOf(ctx.node().op_type());
  if (va.dtype != vb.dtype && kind != BinaryKind::kPow)
    return ctx.Invalid(absl::StrCat("inputs have different types (", te::ToString(va.dtype), ", ",
                                    te::ToString(vb.dtype), ")"));
  if (ctx.opset() < 7) {  // legacy broadcasting: B aligned at `axis` of A
    auto legacy = LegacyBroadcast(ctx, *b);
    if (!legacy.ok()) return legacy.status();
    b = *legacy;
    vb = ctx.value(*b);
  }
  auto shape = BroadcastShapes(ctx, va.shape, vb.shape);
  if (!shape.ok()) return shape.status();
  if (kind == BinaryKind::kPow && !va.dtype.is_float()) {
    // An integer power is computed in float64 and cast back.
    const te::DType f64 = te::DType::Float64();
    auto base = ctx.AddInternal(Cast{f64}, {*a}, f64, va.shape, "base");
    if (!base.ok()) return base.status();
    ValueId exponent = *b;
    if (vb.dtype != f64) {
      auto e = ctx.AddInternal(Cast{f64}, {*b}, f64, vb.shape, "exponent");
      if (!e.ok()) return e.status();
      exponent = *e;
    }
    auto power = ctx.AddInternal(Binary{kind}, {*base, exponent}, f64, *shape, "power");
    if (!power.ok()) return power.status();
    return ctx.AddNode(Cast{va.dtype}, {*power}, va.dtype, *shape).status();
  }
  ValueId rhs = *b;
  if (vb.dtype != va.dtype) {  // Pow with an integer exponent
    auto cast = ctx.AddInternal(Cast{va.dtype}, {*b}, va.dtype, vb.shape, "exponent");
    if (!cast.ok()) return cast.status();
    rhs = *cast;
  }
  return ctx.AddNode(Binary{kind}, {*a, rhs}, va.dtype, *shape).status();
}

absl::Status ConvertClip(ImportContext& ctx) {
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  if (ctx.opset() < 11) {
    auto min = ctx.Float("min", lo);
    auto max = ctx.Float("max", hi);
    if (!min.ok()) return min.status();
    if (!max.ok()) return max.status();
    lo = *min;
    hi = *max;
  } else {
    if (ctx.HasInput(1)) {
      auto v = ctx.ConstScalar(1);
      if (!v.ok()) return v.status();
      lo = *v;
    }
    if (ctx.HasInput(2)) {
      auto v = ctx.ConstScalar(2);
      if (!v.ok()) return v.status();
      hi = *v;
    }
  }
  return AddSameShape(ctx, Clip{lo, hi});
}

absl::Status ConvertLeakyRelu(ImportContext& ctx) {
  auto alpha = ctx.Float("alpha", 0.01);
  if (!alpha.ok()) return alpha.status();
  return AddSameShape(ctx, LeakyRelu{*alpha});
}

absl::Status ConvertHardSigmoid(ImportContext& ctx) {
  auto alpha = ctx.Float("alpha", 0.2);
  auto beta = ctx.Float("beta", 0.5);
  if (!alpha.ok()) return alpha.status();
  if (!beta.ok()) return beta.status();
  return AddSameShape(ctx, HardSigmoid{*alpha, *beta});
}

absl::Status ConvertCast(ImportContext& ctx) {
  auto to = ctx.Int("to", 0);
  if (!to.ok()) return to.status();
  auto dtype = DTypeFromOnnx(static_cast<int32_t>(*to), "attribute 'to'");
  if (!dtype.ok()) return ctx.Unsupported(dtype.status().message());
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  if (ctx.value(*x).dtype == *dtype) return ctx.Alias(*x);
  return ctx.AddNode(Cast{*dtype}, {*x}, *dtype, ctx.value(*x).shape).status();
}

}  // namespace tuneforge::graph::onnx_import
