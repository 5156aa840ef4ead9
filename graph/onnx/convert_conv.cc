// Conv and ConvTranspose: pads resolved per side (auto_pad included), output
// shapes computed here.
#include "absl/strings/str_cat.h"
#include "graph/onnx/converters.h"

namespace tuneforge::graph::onnx_import {
namespace {

// auto_pad is one of the four names ONNX defines.
absl::Status CheckAutoPad(const ImportContext& ctx, const std::string& auto_pad) {
  if (auto_pad == "NOTSET" || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER" || auto_pad == "VALID")
    return absl::OkStatus();
  return ctx.Invalid(absl::StrCat("auto_pad '", auto_pad, "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID"));
}

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
  if (absl::Status known = CheckAutoPad(ctx, *auto_pad); !known.ok()) return known;
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
    }
    if (begin < 0 || end < 0) return ctx.Invalid("pads must not be negative");
    w.pads_begin.push_back(begin);
    w.pads_end.push_back(end);
  }
  return w;
}

// What Conv and ConvTranspose read alike: data and weight of equal rank 3
// to 5 (1-d to 3-d), the group count, the spatial extents.
struct ConvOperands {
  ValueId data = -1, weight = -1;
  std::vector<int64_t> data_shape, weight_shape;
  int64_t group = 1;
  std::vector<int64_t> in_spatial, weight_spatial;
};

absl::StatusOr<ConvOperands> ReadOperands(ImportContext& ctx) {
  ConvOperands o;
  auto data = ctx.Input(0);
  if (!data.ok()) return data.status();
  auto weight = ctx.Input(1);
  if (!weight.ok()) return weight.status();
  o.data = *data;
  o.weight = *weight;
  o.data_shape = ctx.value(o.data).shape;
  o.weight_shape = ctx.value(o.weight).shape;
  if (o.data_shape.size() < 3 || o.data_shape.size() > 5 || o.weight_shape.size() != o.data_shape.size())
    return ctx.Unsupported(absl::StrCat("needs data and weight of rank 3 to 5 (1-d to 3-d "
                                        "convolution), got ranks ", o.data_shape.size(), " and ",
                                        o.weight_shape.size()));
  auto group = ctx.Int("group", 1);
  if (!group.ok()) return group.status();
  if (*group <= 0) return ctx.Invalid(absl::StrCat("group must be positive, got ", *group));
  o.group = *group;
  o.in_spatial.assign(o.data_shape.begin() + 2, o.data_shape.end());
  o.weight_spatial.assign(o.weight_shape.begin() + 2, o.weight_shape.end());
  return o;
}

// The optional bias (input 2) of `K` elements, appended to `inputs`.
absl::Status ReadBias(ImportContext& ctx, int64_t K, std::vector<ValueId>* inputs) {
  if (!ctx.HasInput(2)) return absl::OkStatus();
  auto bias = ctx.Input(2);
  if (!bias.ok()) return bias.status();
  if (ctx.value(*bias).num_elements() != K)
    return ctx.Invalid(absl::StrCat("bias has ", ctx.value(*bias).num_elements(), " elements; the ", K,
                                    " output channels need one each"));
  inputs->push_back(*bias);
  return absl::OkStatus();
}

}  // namespace

absl::Status ConvertConv(ImportContext& ctx) {
  auto operands = ReadOperands(ctx);
  if (!operands.ok()) return operands.status();
  const ConvOperands& o = *operands;
  const int64_t C = o.data_shape[1], K = o.weight_shape[0];
  if (C % o.group != 0 || K % o.group != 0 || o.weight_shape[1] * o.group != C)
    return ctx.Invalid(absl::StrCat("weight [", K, ", ", o.weight_shape[1], ", ...] does not fit ", C,
                                    " input channels in ", o.group, " groups"));
  const std::vector<int64_t>& in_spatial = o.in_spatial;
  const std::vector<int64_t>& w_spatial = o.weight_spatial;
  auto win = ReadWindow(ctx, in_spatial, w_spatial);
  if (!win.ok()) return win.status();
  if (win->kernel != w_spatial) return ctx.Invalid("kernel_shape does not match the weight's shape");
  std::vector<int64_t> out = {o.data_shape[0], K};
  for (size_t d = 0; d < in_spatial.size(); ++d) {
    int64_t span = in_spatial[d] + win->pads_begin[d] + win->pads_end[d] -
                   (win->kernel[d] - 1) * win->dilations[d] - 1;
    if (span < 0) return ctx.Invalid("the dilated kernel is larger than the padded input");
    out.push_back(span / win->strides[d] + 1);
  }
  std::vector<ValueId> inputs = {o.data, o.weight};
  if (absl::Status bias = ReadBias(ctx, K, &inputs); !bias.ok()) return bias;
  Conv op{win->strides, win->dilations, win->pads_begin, win->pads_end, o.group};
  return ctx.AddNode(op, inputs, ctx.value(o.data).dtype, out).status();
}

absl::Status ConvertConvTranspose(ImportContext& ctx) {
  auto operands = ReadOperands(ctx);
  if (!operands.ok()) return operands.status();
  const ConvOperands& o = *operands;
  const int64_t C = o.data_shape[1], K = o.weight_shape[1] * o.group;
  if (o.weight_shape[0] != C || C % o.group != 0)
    return ctx.Invalid(absl::StrCat("weight [", o.weight_shape[0], ", ", o.weight_shape[1],
                                    ", ...] does not match [C, K/group, ...] for ", C, " input channels in ",
                                    o.group, " groups"));
  const size_t n = o.in_spatial.size();
  const std::vector<int64_t>& in_spatial = o.in_spatial;
  const std::vector<int64_t>& w_spatial = o.weight_spatial;
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
  for (size_t d = 0; d < n; ++d) {
    if ((*strides)[d] <= 0 || (*dilations)[d] <= 0)
      return ctx.Invalid("strides and dilations must be positive");
    if ((*pads)[d] < 0 || (*pads)[n + d] < 0) return ctx.Invalid("pads must not be negative");
    if ((*output_padding)[d] < 0 || (*output_padding)[d] >= std::max((*strides)[d], (*dilations)[d]))
      return ctx.Invalid("output_padding must be at least 0 and less than the stride or the dilation");
  }
  if (absl::Status known = CheckAutoPad(ctx, *auto_pad); !known.ok()) return known;
  if (!output_shape->empty() && output_shape->size() != n && output_shape->size() != n + 2)
    return ctx.Invalid(absl::StrCat("output_shape needs ", n, " (or ", n + 2, ") values, got ",
                                    output_shape->size()));
  // output_shape may list the spatial extents only, or N and C too.
  if (output_shape->size() == n + 2) output_shape->erase(output_shape->begin(), output_shape->begin() + 2);
  ConvTranspose op{*strides, *dilations, {}, {}, *output_padding, o.group};
  std::vector<int64_t> out = {o.data_shape[0], K};
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
  std::vector<ValueId> inputs = {o.data, o.weight};
  if (absl::Status bias = ReadBias(ctx, K, &inputs); !bias.ok()) return bias;
  return ctx.AddNode(op, inputs, ctx.value(o.data).dtype, out).status();
}

}  // namespace tuneforge::graph::onnx_import
