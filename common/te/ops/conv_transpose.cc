#include "common/te/ops/conv_transpose.h"

#include "absl/strings/str_cat.h"
#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"

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

// The spread-out, padded input along one dimension: position v of the pad
// stage holds data at (v - shift) / stride when that is a whole index inside
// the input, else 0. Adds the bound tests that can fail to `inside`.
Expr SpreadIndex(const Var& v, int64_t shift, int64_t stride, int64_t in, int64_t padded_extent,
                 Expr& inside) {
  Expr pos(v);
  int64_t last = shift + (in - 1) * stride;  // last position holding data
  if (shift > 0) inside = Conjoin(inside, pos >= IntConst(shift));
  if (padded_extent - 1 > last) inside = Conjoin(inside, pos < IntConst(last + 1));
  Expr offset = Affine(pos, 1, -shift);
  if (stride == 1) return offset;
  inside = Conjoin(inside, EQ(FloorMod(offset, IntConst(stride)), IntConst(0)));
  return FloorDiv(offset, IntConst(stride));
}

}  // namespace

absl::StatusOr<BuiltOp> Conv2dTranspose(const Conv2dTransposeParams& p) {
  if (auto s = Validate(p); !s.ok()) return s;
  auto oh = OutputExtent("H", p.H, "R", p.R, p);
  if (!oh.ok()) return oh.status();
  auto ow = OutputExtent("W", p.W, "S", p.S, p);
  if (!ow.ok()) return ow.status();

  Tensor data = Placeholder("data", {p.N, p.C, p.H, p.W}, p.dtype);
  Tensor kernel = Placeholder("kernel", {p.C, p.K, p.R, p.S}, p.dtype);
  std::vector<IterVar> pad_axes =
      Axes({{"n", p.N}, {"c", p.C}, {"h", *oh + p.R - 1}, {"w", *ow + p.S - 1}});
  Expr inside;
  Expr h = SpreadIndex(pad_axes[2].var, p.R - 1 - p.pad, p.stride, p.H, pad_axes[2].extent, inside);
  Expr w = SpreadIndex(pad_axes[3].var, p.S - 1 - p.pad, p.stride, p.W, pad_axes[3].extent, inside);
  Expr source = Read(data, {Expr(pad_axes[0].var), Expr(pad_axes[1].var), h, w});
  Expr pad_body = inside ? MakeSelect(inside, source, Const(0, p.dtype)) : source;
  auto padded = MakeCompute("pad", std::move(pad_axes), pad_body, "pad");
  if (!padded.ok()) return padded.status();

  std::vector<IterVar> axes = Axes({{"n", p.N}, {"k", p.K}, {"oh", *oh}, {"ow", *ow}});
  IterVar rc = Axis("rc", p.C), ry = Axis("ry", p.R), rx = Axis("rx", p.S);
  Expr n(axes[0].var), k(axes[1].var), y(ry.var), x(rx.var);
  Expr body = Sum(Read(*padded, {n, Expr(rc.var), Expr(axes[2].var) + y, Expr(axes[3].var) + x}) *
                      Read(kernel, {Expr(rc.var), k, IntConst(p.R - 1) - y, IntConst(p.S - 1) - x}),
                  {rc, ry, rx});
  auto out = MakeCompute(std::string(kOp), std::move(axes), std::move(body), std::string(kOp));
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace tuneforge::te::ops
