// BatchNormalization (inference), Softmax, LayerNormalization and the Reduce ops.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "graph/onnx/converters.h"

namespace tuneforge::graph::onnx_import {

namespace {

// LayerNormalization's optional outputs 1 and 2, the mean and 1/sqrt(var +
// epsilon) over the normalised axes (kept as 1s), as nodes of their own.
absl::Status AddLayerNormStatistics(ImportContext& ctx, ValueId x, int64_t axis, double epsilon) {
  auto wanted = [&](int i) { return ctx.node().output_size() > i && !ctx.node().output(i).empty(); };
  if (!wanted(1) && !wanted(2)) return absl::OkStatus();
  const Value v = ctx.value(x);
  Reduce mean_op{ReduceKind::kMean, {}, true};
  std::vector<int64_t> stat_shape = v.shape;
  for (int64_t d = axis; d < static_cast<int64_t>(v.shape.size()); ++d) {
    mean_op.axes.push_back(d);
    stat_shape[d] = 1;
  }
  auto mean = wanted(1) ? ctx.AddNode(mean_op, {x}, v.dtype, stat_shape, 1)
                        : ctx.AddInternal(mean_op, {x}, v.dtype, stat_shape, "mean");
  if (!mean.ok() || !wanted(2)) return mean.status();
  auto centered = ctx.AddInternal(Binary{BinaryKind::kSub}, {x, *mean}, v.dtype, v.shape, "centered");
  if (!centered.ok()) return centered.status();
  auto sq = ctx.AddInternal(Binary{BinaryKind::kMul}, {*centered, *centered}, v.dtype, v.shape, "sq");
  if (!sq.ok()) return sq.status();
  auto var = ctx.AddInternal(mean_op, {*sq}, v.dtype, stat_shape, "var");
  if (!var.ok()) return var.status();
  auto eps = te::NDArray::Empty(v.dtype, {1});
  if (!eps.ok()) return eps.status();
  eps->SetDouble(0, epsilon);
  ValueId eps_id = ctx.AddConstant(*std::move(eps), ctx.node().output(0) + "/epsilon", true);
  auto shifted = ctx.AddInternal(Binary{BinaryKind::kAdd}, {*var, eps_id}, v.dtype, stat_shape, "var_eps");
  if (!shifted.ok()) return shifted.status();
  auto root = ctx.AddInternal(Unary{UnaryKind::kSqrt}, {*shifted}, v.dtype, stat_shape, "std");
  if (!root.ok()) return root.status();
  return ctx.AddNode(Unary{UnaryKind::kReciprocal}, {*root}, v.dtype, stat_shape, 2).status();
}

}  // namespace

absl::Status ConvertBatchNorm(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  if (v.shape.size() < 2) return ctx.Invalid("needs an input of rank 2 or more");
  if (ctx.node().output_size() > 1) {
    for (int i = 1; i < ctx.node().output_size(); ++i)
      if (!ctx.node().output(i).empty())
        return ctx.Unsupported("training mode (running mean and variance outputs) is not supported");
  }
  auto epsilon = ctx.Float("epsilon", 1e-5);
  if (!epsilon.ok()) return epsilon.status();
  std::vector<ValueId> inputs = {*x};
  for (int i = 1; i <= 4; ++i) {
    auto in = ctx.Input(i);
    if (!in.ok()) return in.status();
    if (ctx.value(*in).num_elements() != v.shape[1])
      return ctx.Invalid(absl::StrCat("input ", i, " must have one value per channel (", v.shape[1], ")"));
    inputs.push_back(*in);
  }
  return ctx.AddNode(BatchNorm{*epsilon}, inputs, v.dtype, v.shape).status();
}

absl::Status ConvertSoftmax(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  if (!v.dtype.is_float()) return ctx.Unsupported("needs a float input");
  const int64_t rank = static_cast<int64_t>(v.shape.size());
  auto axis_attr = ctx.Int("axis", ctx.opset() >= 13 ? -1 : 1);
  if (!axis_attr.ok()) return axis_attr.status();
  auto axis = NormalizeAxis(ctx, *axis_attr, rank);
  if (!axis.ok()) return axis.status();
  Softmax op;
  // Before opset 13 the input is coerced to 2-d at `axis`: the softmax runs
  // over every dimension from it on.
  int64_t last = ctx.opset() >= 13 ? *axis : rank - 1;
  for (int64_t d = *axis; d <= last; ++d) op.axes.push_back(d);
  return ctx.AddNode(op, {*x}, v.dtype, v.shape).status();
}

absl::Status ConvertLayerNorm(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  if (!v.dtype.is_float()) return ctx.Unsupported("needs a float input");
  auto axis_attr = ctx.Int("axis", -1);
  auto epsilon = ctx.Float("epsilon", 1e-5);
  if (!axis_attr.ok()) return axis_attr.status();
  if (!epsilon.ok()) return epsilon.status();
  auto axis = NormalizeAxis(ctx, *axis_attr, static_cast<int64_t>(v.shape.size()));
  if (!axis.ok()) return axis.status();
  std::vector<ValueId> inputs = {*x};
  for (int i = 1; i <= 2; ++i) {
    if (i == 2 && !ctx.HasInput(2)) break;
    auto in = ctx.Input(i);
    if (!in.ok()) return in.status();
    inputs.push_back(*in);
  }
  auto y = ctx.AddNode(LayerNorm{*axis, *epsilon}, inputs, v.dtype, v.shape);
  if (!y.ok()) return y.status();
  return AddLayerNormStatistics(ctx, *x, *axis, *epsilon);
}

absl::Status ConvertReduce(ImportContext& ctx) {
  const std::string& type = ctx.node().op_type();
  ReduceKind kind = type == "ReduceMean" ? ReduceKind::kMean
                    : type == "ReduceSum" ? ReduceKind::kSum
                    : type == "ReduceMax" ? ReduceKind::kMax
                                          : ReduceKind::kMin;
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  const int64_t rank = static_cast<int64_t>(v.shape.size());
  auto keepdims = ctx.Int("keepdims", 1);
  if (!keepdims.ok()) return keepdims.status();
  // ReduceSum takes its axes as an input from opset 13 on; the others later.
  auto given = ctx.IntsFromInputOrAttr(1, "axes", {});
  if (!given.ok()) return given.status();
  std::vector<int64_t> axes = *given;
  if (axes.empty()) {
    auto noop = ctx.Int("noop_with_empty_axes", 0);
    if (!noop.ok()) return noop.status();
    if (*noop) return ctx.Alias(*x);
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  for (int64_t& a : axes) {
    auto n = NormalizeAxis(ctx, a, rank);
    if (!n.ok()) return n.status();
    a = *n;
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (kind == ReduceKind::kMean && !v.dtype.is_float()) return ctx.Unsupported("needs a float input");
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced) out.push_back(v.shape[d]);
    else if (*keepdims) out.push_back(1);
  }
  return ctx.AddNode(Reduce{kind, axes, *keepdims != 0}, {*x}, v.dtype, out).status();
}

}  // namespace tuneforge::graph::onnx_import
