#include "common/te/ops/conv_transpose.h"

#include "absl/strings/str_cat.h"
#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/op_inputs.h"

namespace tuneforge::te::ops {
namespace {

constexpr absl::string_view kOp = "conv2d_transpose";

absl::Status Validate(const Conv2dTransposeParams& p) {
  if (auto s = RequirePositive(kOp, {{"N", p.N}, {"C", p.C}, {"H", p.H}, {"W", p.W}, {"K", p.K},
                                     {"R", p.R}, {"S", p.S}, {"stride", p.stride}});
      !s.ok())
    return s;
  if (auto s = RequireNonNegative(kOp, {{"pad", p.pad}, {"output_padding", p.output_padding}});
      !s.ok())
    return s;
  if (p.output_padding >= p.stride)
    return absl::InvalidArgumentError(absl::StrCat(
        kOp, ": output_padding=", p.output_padding, " must be smaller than stride=", p.stride,
        "; it only picks among the stride's possible output sizes"));
  return RequireNumeric(kOp, p.dtype);
}

// Output extent of one spatial dimension, or an error naming the keys.
absl::StatusOr<int64_t> OutputExtent(absl::string_view in_key, int64_t in, absl::string_view k_key,
                                     int64_t kernel, const Conv2dTransposeParams& p) {
  int64_t out = (in - 1) * p.stride - 2 * p.pad + kernel + p.output_padding;
  if (out > 0) return out;
  return absl::InvalidArgumentError(absl::StrCat(
      kOp, ": pad=", p.pad, " leaves no output along ", in_key, " (", in_key, "=", in, ", ", k_key,
      "=", kernel, ", stride=", p.stride, " give ", out, "); use less padding"));
}

// One spatial dimension of the phase form: output position o (t = o + pad)
// takes input t // stride - j through kernel tap t % stride + stride*j, for
// the j the reduction axis walks; adds the bound tests that can fail to
// `inside`.
struct PhaseIndex {
  Expr tap, input;
};
PhaseIndex Phase(const Var& o, const Var& j, int64_t pad, int64_t stride, int64_t in, int64_t kernel,
                 Expr& inside) {
  Expr t = Affine(Expr(o), 1, pad);
  PhaseIndex p;
  p.tap = stride == 1 ? Expr(j) : FloorMod(t, IntConst(stride)) + Affine(Expr(j), stride, 0);
  p.input = (stride == 1 ? t : FloorDiv(t, IntConst(stride))) - Expr(j);
  if (kernel % stride != 0) inside = Conjoin(inside, p.tap < IntConst(kernel));
  inside = Conjoin(inside, p.input >= IntConst(0));
  inside = Conjoin(inside, p.input < IntConst(in));
  return p;
}

}  // namespace

absl::StatusOr<BuiltOp> Conv2dTranspose(const Conv2dTransposeParams& p, const OpInputs& inputs) {
  if (auto s = Validate(p); !s.ok()) return s;
  if (auto s = RequireInputCount(kOp, inputs, 2); !s.ok()) return s;
  auto oh = OutputExtent("H", p.H, "R", p.R, p);
  if (!oh.ok()) return oh.status();
  auto ow = OutputExtent("W", p.W, "S", p.S, p);
  if (!ow.ok()) return ow.status();
  auto data = OpInput(kOp, inputs, 0, "data", {p.N, p.C, p.H, p.W}, p.dtype);
  if (!data.ok()) return data.status();
  auto kernel = OpInput(kOp, inputs, 1, "kernel", {p.C, p.K, p.R, p.S}, p.dtype, InputKind::kWeight);
  if (!kernel.ok()) return kernel.status();

  std::vector<IterVar> axes = Axes({{"n", p.N}, {"k", p.K}, {"oh", *oh}, {"ow", *ow}});
  IterVar rc = Axis("rc", p.C), ry = Axis("ry", (p.R + p.stride - 1) / p.stride),
          rx = Axis("rx", (p.S + p.stride - 1) / p.stride);
  Expr inside;
  PhaseIndex y = Phase(axes[2].var, ry.var, p.pad, p.stride, p.H, p.R, inside);
  PhaseIndex x = Phase(axes[3].var, rx.var, p.pad, p.stride, p.W, p.S, inside);
  Expr n(axes[0].var), k(axes[1].var), c(rc.var);
  Expr term = MakeSelect(inside, Read(*data, {n, c, y.input, x.input}) * Read(*kernel, {c, k, y.tap, x.tap}),
                         Const(0, p.dtype));
  auto out = MakeCompute(std::string(kOp), std::move(axes), Sum(term, {rc, ry, rx}), std::string(kOp));
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace tuneforge::te::ops
