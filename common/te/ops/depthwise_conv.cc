#include "common/te/ops/depthwise_conv.h"

#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/op_inputs.h"
#include "common/te/ops/pad.h"

namespace tuneforge::te::ops {

absl::StatusOr<BuiltOp> DepthwiseConv2d(const DepthwiseConv2dParams& p, const OpInputs& inputs) {
  constexpr absl::string_view kOp = "depthwise_conv2d";
  if (auto s = RequirePositive(kOp, {{"N", p.N}, {"C", p.C}, {"H", p.H}, {"W", p.W}, {"R", p.R},
                                     {"S", p.S}, {"stride", p.stride}, {"dilation", p.dilation},
                                     {"M", p.M}});
      !s.ok())
    return s;
  if (auto s = RequireNonNegative(kOp, {{"pad", p.pad}}); !s.ok()) return s;
  if (auto s = RequireNumeric(kOp, p.dtype); !s.ok()) return s;
  auto oh = WindowOutputExtent(kOp, {"H", p.H, "R", p.R}, p.stride, p.pad, p.dilation);
  if (!oh.ok()) return oh.status();
  auto ow = WindowOutputExtent(kOp, {"W", p.W, "S", p.S}, p.stride, p.pad, p.dilation);
  if (!ow.ok()) return ow.status();

  if (auto s = RequireInputCount(kOp, inputs, 2); !s.ok()) return s;
  auto data = OpInput(kOp, inputs, 0, "data", {p.N, p.C, p.H, p.W}, p.dtype);
  if (!data.ok()) return data.status();
  auto kernel_input = OpInput(kOp, inputs, 1, "kernel", {p.C, p.M, p.R, p.S}, p.dtype, InputKind::kWeight);
  if (!kernel_input.ok()) return kernel_input.status();
  const Tensor& kernel = *kernel_input;
  auto padded = Pad(*data, {0, 0, p.pad, p.pad}, {0, 0, p.pad, p.pad}, Const(0, p.dtype),
                    {"n", "c", "h", "w"});
  if (!padded.ok()) return padded.status();
  std::vector<IterVar> axes = Axes({{"n", p.N}, {"c", p.C * p.M}, {"oh", *oh}, {"ow", *ow}});
  IterVar ry = Axis("ry", p.R), rx = Axis("rx", p.S);
  Expr n(axes[0].var), q(axes[1].var);
  // With M = 1 output channel q reads input channel q and multiplier slot 0.
  Expr in_channel = p.M == 1 ? q : FloorDiv(q, IntConst(p.M));
  Expr slot = p.M == 1 ? IntConst(0) : FloorMod(q, IntConst(p.M));
  Expr body = Sum(Read(*padded, {n, in_channel, WindowIndex(axes[2].var, p.stride, ry.var, p.dilation),
                                 WindowIndex(axes[3].var, p.stride, rx.var, p.dilation)}) *
                      Read(kernel, {in_channel, slot, Expr(ry.var), Expr(rx.var)}),
                  {ry, rx});
  auto out = MakeCompute(std::string(kOp), std::move(axes), std::move(body), std::string(kOp));
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace tuneforge::te::ops
