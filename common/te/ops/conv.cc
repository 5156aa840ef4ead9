#include "common/te/ops/conv.h"

#include <string>
#include <vector>

#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/op_inputs.h"
#include "common/te/ops/pad.h"

namespace tuneforge::te::ops {
namespace {

// One spatial dimension: input and kernel extents with their keys, and the
// names of the axes that walk it.
struct SpatialDim {
  absl::string_view in_key;
  int64_t in;
  absl::string_view kernel_key;
  int64_t kernel;
  const char* in_axis;   // pad stage
  const char* out_axis;  // output
  const char* red_axis;  // kernel window
};

// Conv1d/2d/3d share everything but the number of spatial dimensions.
struct ConvNd {
  absl::string_view op;
  int64_t N, C, K;
  std::vector<SpatialDim> dims;
  int64_t stride, pad, dilation, groups;
  DType dtype;
};

absl::Status Validate(const ConvNd& c) {
  if (auto s = RequirePositive(c.op, {{"N", c.N}, {"C", c.C}, {"K", c.K}}); !s.ok()) return s;
  for (const SpatialDim& d : c.dims)
    if (auto s = RequirePositive(c.op, {{d.in_key, d.in}, {d.kernel_key, d.kernel}}); !s.ok())
      return s;
  if (auto s = RequirePositive(c.op, {{"stride", c.stride}, {"dilation", c.dilation},
                                      {"groups", c.groups}});
      !s.ok())
    return s;
  if (auto s = RequireNonNegative(c.op, {{"pad", c.pad}}); !s.ok()) return s;
  if (auto s = RequireDivisible(c.op, {"C", c.C}, {"groups", c.groups}); !s.ok()) return s;
  if (auto s = RequireDivisible(c.op, {"K", c.K}, {"groups", c.groups}); !s.ok()) return s;
  return RequireNumeric(c.op, c.dtype);
}

absl::StatusOr<BuiltOp> BuildConv(const ConvNd& c, const OpInputs& inputs) {
  if (auto s = Validate(c); !s.ok()) return s;
  if (auto s = RequireInputCount(c.op, inputs, 2); !s.ok()) return s;
  const int64_t c_per_group = c.C / c.groups, k_per_group = c.K / c.groups;
  std::vector<int64_t> data_shape = {c.N, c.C}, kernel_shape = {c.K, c_per_group};
  std::vector<int64_t> pads = {0, 0};
  std::vector<std::string> pad_names = {"n", "c"};
  std::vector<std::pair<std::string, int64_t>> out_axes = {{"n", c.N}, {"k", c.K}};
  for (const SpatialDim& d : c.dims) {
    auto extent = WindowOutputExtent(c.op, {d.in_key, d.in, d.kernel_key, d.kernel}, c.stride,
                                     c.pad, c.dilation);
    if (!extent.ok()) return extent.status();
    data_shape.push_back(d.in);
    kernel_shape.push_back(d.kernel);
    pads.push_back(c.pad);
    pad_names.push_back(d.in_axis);
    out_axes.push_back({d.out_axis, *extent});
  }
  auto data = OpInput(c.op, inputs, 0, "data", data_shape, c.dtype);
  if (!data.ok()) return data.status();
  auto kernel_input = OpInput(c.op, inputs, 1, "kernel", kernel_shape, c.dtype, InputKind::kWeight);
  if (!kernel_input.ok()) return kernel_input.status();
  const Tensor& kernel = *kernel_input;
  auto padded = Pad(*data, pads, pads, Const(0, c.dtype), pad_names);
  if (!padded.ok()) return padded.status();

  std::vector<IterVar> axes = Axes(out_axes);
  std::vector<IterVar> reduce = {Axis("rc", c_per_group)};
  for (const SpatialDim& d : c.dims) reduce.push_back(Axis(d.red_axis, d.kernel));
  Expr n(axes[0].var), k(axes[1].var), rc(reduce[0].var);
  Expr group = k_per_group == 1 ? k : FloorDiv(k, IntConst(k_per_group));
  Expr channel = c.groups == 1 ? rc : Affine(group, c_per_group, 0) + rc;
  std::vector<Expr> data_index = {n, channel}, kernel_index = {k, rc};
  for (size_t d = 0; d < c.dims.size(); ++d) {
    data_index.push_back(WindowIndex(axes[2 + d].var, c.stride, reduce[1 + d].var, c.dilation));
    kernel_index.push_back(Expr(reduce[1 + d].var));
  }
  Expr body = Sum(Read(*padded, data_index) * Read(kernel, kernel_index), reduce);
  auto out = MakeCompute(std::string(c.op), std::move(axes), std::move(body), std::string(c.op));
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace

absl::StatusOr<BuiltOp> Conv1d(const Conv1dParams& p, const OpInputs& inputs) {
  return BuildConv({"conv1d", p.N, p.C, p.K, {{"W", p.W, "S", p.S, "w", "ow", "rx"}}, p.stride,
                    p.pad, p.dilation, p.groups, p.dtype},
                   inputs);
}

absl::StatusOr<BuiltOp> Conv2d(const Conv2dParams& p, const OpInputs& inputs) {
  return BuildConv({"conv2d", p.N, p.C, p.K,
                    {{"H", p.H, "R", p.R, "h", "oh", "ry"}, {"W", p.W, "S", p.S, "w", "ow", "rx"}},
                    p.stride, p.pad, p.dilation, p.groups, p.dtype},
                   inputs);
}

absl::StatusOr<BuiltOp> Conv3d(const Conv3dParams& p, const OpInputs& inputs) {
  return BuildConv({"conv3d", p.N, p.C, p.K,
                    {{"D", p.D, "T", p.T, "d", "od", "rz"},
                     {"H", p.H, "R", p.R, "h", "oh", "ry"},
                     {"W", p.W, "S", p.S, "w", "ow", "rx"}},
                    p.stride, p.pad, p.dilation, p.groups, p.dtype},
                   inputs);
}

}  // namespace tuneforge::te::ops
