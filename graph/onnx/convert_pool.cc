// MaxPool, AveragePool (1-d to 3-d, explicit or auto pads, ceil_mode,
// MaxPool dilations) and GlobalAveragePool / GlobalMaxPool (a mean or max
// over the spatial axes).
#include "absl/strings/str_cat.h"
#include "graph/onnx/converters.h"

namespace tuneforge::graph::onnx_import {

absl::Status ConvertPool(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  const size_t rank = v.shape.size();
  if (rank < 3 || rank > 5)
    return ctx.Unsupported("only 1-d, 2-d and 3-d pooling (N, C, spatial...) is supported");
  const size_t n = rank - 2;
  if (ctx.node().output_size() > 1 && !ctx.node().output(1).empty())
    return ctx.Unsupported("the Indices output is not supported");
  bool max = ctx.node().op_type() == "MaxPool";
  auto kernel = ctx.Ints("kernel_shape", {});
  auto strides = ctx.Ints("strides", std::vector<int64_t>(n, 1));
  auto pads = ctx.Ints("pads", std::vector<int64_t>(2 * n, 0));
  auto dilations = ctx.Ints("dilations", std::vector<int64_t>(n, 1));
  auto auto_pad = ctx.String("auto_pad", "NOTSET");
  auto ceil_mode = ctx.Int("ceil_mode", 0);
  auto include_pad = ctx.Int("count_include_pad", 0);
  for (const absl::Status& s : {kernel.status(), strides.status(), pads.status(),
                                dilations.status(), auto_pad.status(), ceil_mode.status(),
                                include_pad.status()})
    if (!s.ok()) return s;
  if (kernel->size() != n || strides->size() != n || pads->size() != 2 * n ||
      dilations->size() != n)
    return ctx.Invalid(absl::StrCat("kernel_shape, strides and dilations need ", n,
                                    " values, pads ", 2 * n, " (the input has ", n,
                                    " spatial dims)"));
  bool dilated = false;
  for (int64_t d : *dilations) {
    if (d <= 0) return ctx.Invalid("dilations must be positive");
    dilated = dilated || d != 1;
  }
  // AveragePool has no dilations before opset 19.
  if (dilated && !max) return ctx.Unsupported("dilated average pooling is not supported");
  Pool op{max ? PoolKind::kMax : PoolKind::kAverage, *kernel, *strides, {}, {}, *include_pad != 0,
          *dilations};
  std::vector<int64_t> out = {v.shape[0], v.shape[1]};
  for (size_t d = 0; d < n; ++d) {
    const int64_t in = v.shape[2 + d], k = (*kernel)[d], s = (*strides)[d];
    if (k <= 0 || s <= 0) return ctx.Invalid("kernel_shape and strides must be positive");
    const int64_t span_k = (k - 1) * (*dilations)[d] + 1;  // the dilated window
    int64_t begin = (*pads)[d], end = (*pads)[n + d], extent = 0;
    if (*auto_pad == "SAME_UPPER" || *auto_pad == "SAME_LOWER") {
      extent = (in + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (extent - 1) * s + span_k - in);
      begin = *auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else {
      if (*auto_pad == "VALID") begin = end = 0;
      int64_t span = in + begin + end - span_k;
      if (span < 0) return ctx.Invalid("the window is larger than the padded input");
      extent = (*ceil_mode ? (span + s - 1) / s : span / s) + 1;
      // A last window that would start in the end padding is dropped.
      if (*ceil_mode && (extent - 1) * s >= in + begin) --extent;
      // Cover the last window with extra end padding (the identity of the
      // reduction, never counted by an average that excludes padding).
      end = std::max(end, (extent - 1) * s + span_k - in - begin);
    }
    op.pads_begin.push_back(begin);
    op.pads_end.push_back(end);
    out.push_back(extent);
  }
  if (!max && *include_pad && *ceil_mode)
    return ctx.Unsupported("count_include_pad with ceil_mode is not supported");
  return ctx.AddNode(op, {*x}, v.dtype, out).status();
}

absl::Status ConvertGlobalPool(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  if (v.shape.size() < 3) return ctx.Invalid("needs an input of rank 3 or more");
  bool max = ctx.node().op_type() == "GlobalMaxPool";
  Reduce op{max ? ReduceKind::kMax : ReduceKind::kMean, {}, true};
  std::vector<int64_t> out = {v.shape[0], v.shape[1]};
  for (size_t d = 2; d < v.shape.size(); ++d) {
    op.axes.push_back(static_cast<int64_t>(d));
    out.push_back(1);
  }
  return ctx.AddNode(op, {*x}, v.dtype, out).status();
}

}  // namespace tuneforge::graph::onnx_import
