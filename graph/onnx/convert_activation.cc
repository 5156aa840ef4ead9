// PRelu, Elu, Selu, Softplus, Softsign and LogSoftmax, written as several
// existing IR ops (internal nodes) rather than new ones, so fusion, folding
// and the lowering need nothing new for them.
#include "absl/strings/str_cat.h"
#include "graph/onnx/converters.h"

namespace tuneforge::graph::onnx_import {
namespace {

// Adds a chain of nodes; after the first error every step is skipped and
// status() reports it, so a converter reads as its formula. (Nest at most
// one node-adding argument per call: argument order is unspecified.)
class Chain {
 public:
  Chain(ImportContext& ctx, te::DType dtype) : ctx_(ctx), dtype_(dtype) {}

  ValueId Scalar(double v) {
    if (!status_.ok()) return -1;
    auto id = ScalarConstant(ctx_, v, dtype_, absl::StrCat("c", count_++));
    if (!id.ok()) status_ = id.status();
    return id.ok() ? *id : -1;
  }
  ValueId Un(UnaryKind kind, ValueId a, bool output = false) {
    if (!status_.ok()) return -1;
    return Add(Unary{kind}, {a}, ctx_.value(a).shape, output);
  }
  ValueId Bin(BinaryKind kind, ValueId a, ValueId b, bool output = false) {
    if (!status_.ok()) return -1;
    auto shape = BroadcastShapes(ctx_, ctx_.value(a).shape, ctx_.value(b).shape);
    if (!shape.ok()) status_ = shape.status();
    return status_.ok() ? Add(Binary{kind}, {a, b}, *shape, output) : -1;
  }
  // Keeps the reduced axes as 1s.
  ValueId Red(ReduceKind kind, ValueId a, const std::vector<int64_t>& axes) {
    if (!status_.ok()) return -1;
    std::vector<int64_t> shape = ctx_.value(a).shape;
    for (int64_t d : axes) shape[d] = 1;
    return Add(Reduce{kind, axes, true}, {a}, shape, false);
  }
  const absl::Status& status() const { return status_; }

 private:
  ValueId Add(Op op, std::vector<ValueId> in, std::vector<int64_t> shape, bool output) {
    auto id = output ? ctx_.AddNode(std::move(op), std::move(in), dtype_, std::move(shape))
                     : ctx_.AddInternal(std::move(op), std::move(in), dtype_, std::move(shape),
                                        "act");
    if (!id.ok()) status_ = id.status();
    return id.ok() ? *id : -1;
  }
  ImportContext& ctx_;
  te::DType dtype_;
  absl::Status status_;
  int count_ = 0;
};

absl::StatusOr<ValueId> FloatInput(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  if (!ctx.value(*x).dtype.is_float()) return ctx.Unsupported("needs a float input");
  return x;
}

}  // namespace

absl::StatusOr<ValueId> ScalarConstant(ImportContext& ctx, double v, te::DType dtype,
                                       const std::string& suffix) {
  auto a = te::NDArray::Empty(dtype, {1});
  if (!a.ok()) return ctx.Error(a.status().code(), a.status().message());
  a->SetDouble(0, v);
  return ctx.AddConstant(*std::move(a), absl::StrCat(ctx.node().output(0), "/", suffix));
}

// relu(x) + slope * min(x, 0): slope * x where x < 0, else x.
absl::Status ConvertPRelu(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  auto slope = ctx.Input(1);
  if (!slope.ok()) return slope.status();
  const Value vx = ctx.value(*x);  // copies: adding nodes may move the values
  const Value vs = ctx.value(*slope);
  if (vx.dtype != vs.dtype) return ctx.Invalid("x and slope have different types");
  ValueId s = *slope;
  // Before opset 7 a 1-d slope of C values is per channel (axis 1).
  if (ctx.opset() < 7 && vx.shape.size() > 2 && vs.shape.size() == 1 && vs.shape[0] > 1 &&
      vs.shape[0] == vx.shape[1]) {
    std::vector<int64_t> shape(vx.shape.size() - 1, 1);
    shape[0] = vs.shape[0];
    auto r = ctx.AddInternal(Reshape{}, {s}, vs.dtype, shape, "slope");
    if (!r.ok()) return r.status();
    s = *r;
  }
  auto shape = BroadcastShapes(ctx, vx.shape, ctx.value(s).shape);
  if (!shape.ok()) return shape.status();
  if (*shape != vx.shape) return ctx.Invalid("slope does not broadcast to the shape of x");
  Chain c(ctx, vx.dtype);
  ValueId pos = c.Un(UnaryKind::kRelu, *x);
  ValueId neg = c.Bin(BinaryKind::kMul, c.Bin(BinaryKind::kMin, *x, c.Scalar(0)), s);
  c.Bin(BinaryKind::kAdd, pos, neg, true);
  return c.status();
}

// Elu: relu(x) + alpha * (exp(min(x, 0)) - 1); Selu scales both by gamma.
absl::Status ConvertElu(ImportContext& ctx) {
  const bool selu = ctx.node().op_type() == "Selu";
  auto alpha = ctx.Float("alpha", selu ? 1.67326319217681884765625 : 1.0);
  auto gamma = ctx.Float("gamma", 1.05070102214813232421875);
  if (!alpha.ok()) return alpha.status();
  if (!gamma.ok()) return gamma.status();
  auto x = FloatInput(ctx);
  if (!x.ok()) return x.status();
  Chain c(ctx, ctx.value(*x).dtype);
  ValueId pos = c.Un(UnaryKind::kRelu, *x);
  ValueId e = c.Un(UnaryKind::kExp, c.Bin(BinaryKind::kMin, *x, c.Scalar(0)));
  ValueId em1 = c.Bin(BinaryKind::kSub, e, c.Scalar(1));
  if (selu) pos = c.Bin(BinaryKind::kMul, pos, c.Scalar(*gamma));
  ValueId neg = c.Bin(BinaryKind::kMul, em1, c.Scalar(selu ? *alpha * *gamma : *alpha));
  c.Bin(BinaryKind::kAdd, pos, neg, true);
  return c.status();
}

// log(exp(x) + 1), as ONNX defines it.
absl::Status ConvertSoftplus(ImportContext& ctx) {
  auto x = FloatInput(ctx);
  if (!x.ok()) return x.status();
  Chain c(ctx, ctx.value(*x).dtype);
  ValueId e = c.Un(UnaryKind::kExp, *x);
  c.Un(UnaryKind::kLog, c.Bin(BinaryKind::kAdd, e, c.Scalar(1)), true);
  return c.status();
}

// x / (1 + |x|).
absl::Status ConvertSoftsign(ImportContext& ctx) {
  auto x = FloatInput(ctx);
  if (!x.ok()) return x.status();
  Chain c(ctx, ctx.value(*x).dtype);
  ValueId abs = c.Un(UnaryKind::kAbs, *x);
  ValueId den = c.Bin(BinaryKind::kAdd, abs, c.Scalar(1));
  c.Bin(BinaryKind::kDiv, *x, den, true);
  return c.status();
}

// (x - max) - log(sum(exp(x - max))): stable where log(softmax) underflows.
absl::Status ConvertLogSoftmax(ImportContext& ctx) {
  auto x = FloatInput(ctx);
  if (!x.ok()) return x.status();
  const int64_t rank = static_cast<int64_t>(ctx.value(*x).shape.size());
  auto axis_attr = ctx.Int("axis", ctx.opset() >= 13 ? -1 : 1);
  if (!axis_attr.ok()) return axis_attr.status();
  auto axis = NormalizeAxis(ctx, *axis_attr, rank);
  if (!axis.ok()) return axis.status();
  // Before opset 13 the input is coerced to 2-d at `axis`, as for Softmax.
  std::vector<int64_t> axes;
  for (int64_t d = *axis; d <= (ctx.opset() >= 13 ? *axis : rank - 1); ++d) axes.push_back(d);
  Chain c(ctx, ctx.value(*x).dtype);
  ValueId shifted = c.Bin(BinaryKind::kSub, *x, c.Red(ReduceKind::kMax, *x, axes));
  ValueId sum = c.Red(ReduceKind::kSum, c.Un(UnaryKind::kExp, shifted), axes);
  c.Bin(BinaryKind::kSub, shifted, c.Un(UnaryKind::kLog, sum), true);
  return c.status();
}

}  // namespace tuneforge::graph::onnx_import
