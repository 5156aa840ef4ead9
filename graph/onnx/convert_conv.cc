// Conv and ConvTranspose: pads resolved per side (auto_pad included), output
// shapes computed here.
#include "absl/strings/str_cat.h"
#include "graph/onnx/converters.h"

namespace tuneforge::graph::onnx_import {
namespace {

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
};

// kernel_shape, strides, dilations and pads (explicit or auto_pad) for
// `spatial` dimensions of the input; `same_output` gives the output extents
// that auto_pad SAME keeps (input / stride, rounded up).
absl::StatusOr<Window> ReadWindow(const ImportContext& ctx, const std::vector<int64_t>& in_spatial,
                                  const std::vector<int64_t>& weight_spatial) {
  size_t n = in_spatial.size();
  Window w;
  auto kernel = ctx.Ints("kernel_shape", weight_spatial);
  auto strides = ctx.Ints("strides", std::vector<int64_t>(n, 1));
  auto dilations = ctx.Ints("dilations", std::vector<int64_t>(n, 1));
  auto pads = ctx.Ints("pads", std::vector<int64_t>(2 * n, 0));
  auto auto_pad = ctx.String("auto_pad", "NOTSET");
  for (const absl::Status& s : {kernel.status(), strides.status(), dilations.status(),
                                pads.status(), auto_pad.status()})
    if (!s.ok()) return s;
  if (kernel->size() != n || strides->size() != n || dilations->size() != n || pads->size() != 2 * n)
    return ctx.Invalid(absl::StrCat("kernel_shape, strides and dilations need ", n,
                                    " values and pads ", 2 * n, " for a ", n, "-d window"));
  w.kernel = *kernel;
  w.strides = *strides;
  w.dilations = *dilations;
  for (size_t d = 0; d < n; ++d) {
    if (w.strides[d] <= 0 || w.dilations[d] <= 0 || w.kernel[d] <= 0)
      return ctx.Invalid("kernel_shape, strides and dilations must be positive");
    int64_t begin = (*pads)[d], end = (*pads)[n + d];
    if (*auto_pad == "SAME_UPPER" || *auto_pad == "SAME_LOWER") {
      int64_t out = (in_spatial[d] + w.strides[d] - 1) / w.strides[d];
      int64_t total = std::max<int64_t>(
          0, (out - 1) * w.strides[d] + (w.kernel[d] - 1) * w.dilations[d] + 1 - in_spatial[d]);
      begin = *auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else if (*auto_pad == "VALID") {
      begin = end = 0;
    } else if (*auto_pad != "NOTSET") {
      return ctx.Invalid(absl::StrCat("auto_pad '", *auto_pad,
                                      "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID"));
    }
    if (begin < 0 || end < 0) return ctx.Invalid("pads must not be negative");
    w.pads_begin.push_back(begin);
    w.pads_end.push_back(end);
  }
  return w;
}

}  // namespace

absl::Status ConvertConv(ImportContext& ctx) {
  auto data = ctx.Input(0);
  if (!data.ok()) return data.status();
  auto weight = ctx.Input(1);
  if (!weight.ok()) return weight.status();
  const Value& x = ctx.value(*data);
  const Value& w = ctx.value(*weight);
  if (x.shape.size() < 3 || x.shape.size() > 5 || w.shape.size() != x.shape.size())
    return ctx.Unsupported(absl::StrCat("needs data and weight of rank 3 to 5 (1-d to 3-d "
                                        "convolution), got ranks ", x.shape.size(), " and ",
                                        w.shape.size()));
  auto group = ctx.Int("group", 1);
  if (!group.ok()) return group.status();
  const int64_t C = x.shape[1], K = w.shape[0];
  if (*group <= 0 || C % *group != 0 || K % *group != 0 || w.shape[1] * *group != C)
    return ctx.Invalid(absl::StrCat("weight [", K, ", ", w.shape[1], ", ...] does not fit ", C,
                                    " input channels in ", *group, " groups"));
  std::vector<int64_t> in_spatial(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> w_spatial(w.shape.begin() + 2, w.shape.end());
  auto win = ReadWindow(ctx, in_spatial, w_spatial);
  if (!win.ok()) return win.status();
  if (win->kernel != w_spatial) return ctx.Invalid("kernel_shape does not match the weight's shape");
  std::vector<int64_t> out = {x.shape[0], K};
  for (size_t d = 0; d < in_spatial.size(); ++d) {
    int64_t span = in_spatial[d] + win->pads_begin[d] + win->pads_end[d] -
                   (win->kernel[d] - 1) * win->dilations[d] - 1;
    if (span < 0) return ctx.Invalid("the dilated kernel is larger than the padded input");
    out.push_back(span / win->strides[d] + 1);
  }
  std::vector<ValueId> inputs = {*data, *weight};
  if (ctx.HasInput(2)) {
    auto bias = ctx.Input(2);
    if (!bias.ok()) return bias.status();
    if (ctx.value(*bias).num_elements() != K) return ctx.Invalid("bias must have K elements");
    inputs.push_back(*bias);
  }
  Conv op{win->strides, win->dilations, win->pads_begin, win->pads_end, *group};
  return ctx.AddNode(op, inputs, x.dtype, out).status();
}

absl::Status ConvertConvTranspose(ImportContext& ctx) {
  auto data = ctx.Input(0);
  if (!data.ok()) return data.status();
  auto weight = ctx.Input(1);
  if (!weight.ok()) return weight.status();
  const Value& x = ctx.value(*data);
  const Value& w = ctx.value(*weight);
  if (x.shape.size() < 3 || x.shape.size() > 5 || w.shape.size() != x.shape.size())
    return ctx.Unsupported("needs data and weight of rank 3 to 5");
  auto group = ctx.Int("group", 1);
  if (!group.ok()) return group.status();
  const int64_t C = x.shape[1], K = w.shape[1] * *group;
  if (*group <= 0 || w.shape[0] != C || C % *group != 0)
    return ctx.Invalid("the weight [C, K/group, ...] does not match the input channels");
  size_t n = x.shape.size() - 2;
  std::vector<int64_t> in_spatial(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> w_spatial(w.shape.begin() + 2, w.shape.end());
  auto kernel = ctx.Ints("kernel_shape", w_spatial);
  auto strides = ctx.Ints("strides", std::vector<int64_t>(n, 1));
  auto dilations = ctx.Ints("dilations", std::vector<int64_t>(n, 1));
  auto pads = ctx.Ints("pads", std::vector<int64_t>(2 * n, 0));
  auto output_padding = ctx.Ints("output_padding", std::vector<int64_t>(n, 0));
  auto output_shape = ctx.Ints("output_shape", {});
  auto auto_pad = ctx.String("auto_pad", "NOTSET");
  for (const absl::Status& s : {kernel.status(), strides.status(), dilations.status(), pads.status(),
                                output_padding.status(), output_shape.status(), auto_pad.status()})
    if (!s.ok()) return s;
  if (*kernel != w_spatial || strides->size() != n || dilations->size() != n ||
      pads->size() != 2 * n || output_padding->size() != n)
    return ctx.Invalid("kernel_shape, strides, dilations, pads or output_padding have the wrong length");
  // output_shape may list the spatial extents only, or N and C too.
  if (output_shape->size() == n + 2) output_shape->erase(output_shape->begin(), output_shape->begin() + 2);
  ConvTranspose op{*strides, *dilations, {}, {}, *output_padding, *group};
  std::vector<int64_t> out = {x.shape[0], K};
  for (size_t d = 0; d < n; ++d) {
    int64_t full = (*strides)[d] * (in_spatial[d] - 1) + (*output_padding)[d] +
                   ((*kernel)[d] - 1) * (*dilations)[d] + 1;
    int64_t begin = (*pads)[d], end = (*pads)[n + d];
    bool same = *auto_pad == "SAME_UPPER" || *auto_pad == "SAME_LOWER";
    if (!output_shape->empty() || same) {
      int64_t target = output_shape->empty() ? in_spatial[d] * (*strides)[d] : (*output_shape)[d];
      // A negative total (output_shape past the full output) extends the
      // end, as the ONNX reference's floor division does.
      int64_t total = full - target;
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      begin = *auto_pad == "SAME_UPPER" ? half : total - half;
      end = total - begin;
    }
    if (full - begin - end <= 0) return ctx.Invalid("the output would be empty");
    op.pads_begin.push_back(begin);
    op.pads_end.push_back(end);
    out.push_back(full - begin - end);
  }
  std::vector<ValueId> inputs = {*data, *weight};
  if (ctx.HasInput(2)) {
    auto bias = ctx.Input(2);
    if (!bias.ok()) return bias.status();
    inputs.push_back(*bias);
  }
  return ctx.AddNode(op, inputs, x.dtype, out).status();
}

}  // namespace tuneforge::graph::onnx_import
