// Pad (constant mode), Split and Expand: ops that copy their input into a
// new layout. Pads, split sizes and the expanded shape must be constants.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/onnx/converters.h"

namespace tuneforge::graph::onnx_import {

absl::Status ConvertPad(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value v = ctx.value(*x);  // a copy: adding nodes may move the values
  const size_t rank = v.scalar ? 0 : v.shape.size();
  auto mode = ctx.String("mode", "constant");
  if (!mode.ok()) return mode.status();
  if (*mode != "constant")
    return ctx.Unsupported(absl::StrCat("mode '", *mode, "' is not supported (only 'constant')"));
  std::vector<int64_t> pads;
  double value = 0;
  if (ctx.opset() < 11) {  // pads (opset 1: paddings) and value are attributes
    auto p = ctx.Ints(ctx.opset() < 2 ? "paddings" : "pads", {});
    auto f = ctx.Float("value", 0);
    if (!p.ok()) return p.status();
    if (!f.ok()) return f.status();
    pads = *p;
    value = *f;
  } else {
    auto p = ctx.ConstInts(1);
    if (!p.ok()) return p.status();
    pads = *p;
    if (ctx.HasInput(2)) {
      auto f = ctx.ConstScalar(2);
      if (!f.ok()) return f.status();
      value = *f;
    }
    if (ctx.HasInput(3)) return ctx.Unsupported("the axes input is not supported");
  }
  if (pads.size() != 2 * rank)
    return ctx.Invalid(absl::StrCat("pads has ", pads.size(), " values; a rank-", rank,
                                    " input needs ", 2 * rank));
  Pad op{std::vector<int64_t>(pads.begin(), pads.begin() + rank),
         std::vector<int64_t>(pads.begin() + rank, pads.end()), value};
  std::vector<int64_t> shape = v.shape;
  bool any = false;
  for (size_t d = 0; d < rank; ++d) {
    shape[d] += op.pads_begin[d] + op.pads_end[d];
    if (shape[d] < 0)
      return ctx.Invalid(absl::StrCat("pads [", absl::StrJoin(pads, ", "), "] crop more than the ",
                                      v.shape[d], " elements of axis ", d));
    any = any || op.pads_begin[d] != 0 || op.pads_end[d] != 0;
  }
  if (!any) return ctx.Alias(*x);
  return ctx.AddNode(op, {*x}, v.dtype, shape).status();
}

// One Slice node per output.
absl::Status ConvertSplit(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value v = ctx.value(*x);
  auto axis_attr = ctx.Int("axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  auto axis = NormalizeAxis(ctx, *axis_attr, static_cast<int64_t>(v.shape.size()));
  if (!axis.ok()) return axis.status();
  const int64_t dim = v.shape[*axis];
  const int outputs = ctx.node().output_size();
  if (outputs == 0) return ctx.Invalid("has no outputs");
  // The sizes are an input in opset 1 and from 13, an attribute in between.
  auto sizes = ctx.HasInput(1) ? ctx.ConstInts(1) : ctx.Ints("split", {});
  if (!sizes.ok()) return sizes.status();
  if (sizes->empty()) {
    if (dim % outputs != 0)
      return ctx.Invalid(absl::StrCat("axis ", *axis, " of extent ", dim,
                                      " does not split evenly into ", outputs, " outputs"));
    sizes->assign(outputs, dim / outputs);
  }
  int64_t total = 0;
  for (int64_t s : *sizes) total += s < 0 ? dim + 1 : s;  // a negative size fails the check
  if (static_cast<int>(sizes->size()) != outputs || total != dim)
    return ctx.Invalid(absl::StrCat("split sizes [", absl::StrJoin(*sizes, ", "), "] do not cover ",
                                    "axis ", *axis, " (extent ", dim, ") in ", outputs,
                                    " outputs"));
  if (outputs == 1) return ctx.Alias(*x);
  int64_t offset = 0;
  for (int o = 0; o < outputs; ++o) {
    const int64_t size = (*sizes)[o];
    if (!ctx.node().output(o).empty()) {
      Slice op{std::vector<int64_t>(v.shape.size(), 0), std::vector<int64_t>(v.shape.size(), 1)};
      op.starts[*axis] = offset;
      std::vector<int64_t> shape = v.shape;
      shape[*axis] = size;
      auto id = ctx.AddNode(op, {*x}, v.dtype, shape, o);
      if (!id.ok()) return id.status();
    }
    offset += size;
  }
  return absl::OkStatus();
}

// x * ones, the ones shaped to add only the broadcast dimensions: exact for
// every value, and the constant stays as small as the expansion allows.
absl::Status ConvertExpand(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value v = ctx.value(*x);
  if (v.dtype == te::DType::Bool()) return ctx.Unsupported("bool tensors are not supported");
  auto target = ctx.ConstInts(1);
  if (!target.ok()) return target.status();
  for (int64_t d : *target) {
    if (d < 0)
      return ctx.Invalid(absl::StrCat("the shape [", absl::StrJoin(*target, ", "), "] is invalid"));
    if (d == 0) return ctx.Unsupported("empty tensors are not supported");
  }
  const std::vector<int64_t> in = v.scalar ? std::vector<int64_t>{} : v.shape;
  auto out = BroadcastShapes(ctx, in, *target);
  if (!out.ok()) return out.status();
  if (*out == in || out->empty()) return ctx.Alias(*x);
  const size_t lead = out->size() - in.size();
  std::vector<int64_t> ones_shape(out->size(), 1);
  for (size_t d = 0; d < out->size(); ++d)
    if (d < lead || in[d - lead] != (*out)[d]) ones_shape[d] = (*out)[d];
  auto ones = te::NDArray::Empty(v.dtype, ones_shape);
  if (!ones.ok()) return ctx.Error(ones.status().code(), ones.status().message());
  for (int64_t k = 0; k < ones->num_elements(); ++k) ones->SetDouble(k, 1);
  ValueId c = ctx.AddConstant(*std::move(ones), absl::StrCat(ctx.node().output(0), "/ones"));
  return ctx.AddNode(Binary{BinaryKind::kMul}, {*x, c}, v.dtype, *out).status();
}

}  // namespace tuneforge::graph::onnx_import
