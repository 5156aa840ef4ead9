#include "common/te/ops/conv_transpose.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/op_inputs.h"
#include "common/te/ops/pad.h"

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

// One spatial dimension of the phase form, stride s: output position
// o = s*o2 + phase (t = o + pad) takes kernel tap t % s + s*j from input
// t // s - j = o2 + (phase + pad) // s - j, for the j in [0, taps) the
// reduction walks. Each phase is then a plain convolution over o2 whose
// input reads are contiguous; the input is padded so that every read of
// every phase is in bounds, including the rows of a last, shorter phase
// (their results are computed and dropped).
struct PhaseDim {
  int64_t kernel, stride, pad;
  int64_t per_phase;  // ceil(out / stride): positions of the longest phase
  int64_t taps;       // ceil(kernel / stride)
  int64_t before, after;
};
PhaseDim MakePhaseDim(int64_t in, int64_t kernel, int64_t out, int64_t stride, int64_t pad) {
  PhaseDim d{kernel, stride, pad, (out + stride - 1) / stride, (kernel + stride - 1) / stride, 0, 0};
  const int64_t lowest = pad / stride - (d.taps - 1);                   // phase 0, o2 = 0, last tap
  const int64_t highest = d.per_phase - 1 + (stride - 1 + pad) / stride;  // last phase, last o2, tap 0
  d.before = std::max<int64_t>(0, -lowest);
  d.after = std::max<int64_t>(0, highest - (in - 1));
  return d;
}

struct PhaseIndex {
  Expr tap, input;  // input: into the padded data
};
// `phase` is null for stride 1 (a single phase). Adds the test that a tap
// past the kernel's end is skipped to `inside` when stride does not divide
// the kernel.
PhaseIndex Phase(const PhaseDim& d, const Var* phase, const Var& o2, const Var& j, Expr& inside) {
  PhaseIndex p;
  if (phase == nullptr) {
    p.tap = Expr(j);
    p.input = Affine(Expr(o2), 1, d.pad + d.before) - Expr(j);
    return p;
  }
  Expr t = Affine(Expr(*phase), 1, d.pad);
  p.tap = FloorMod(t, IntConst(d.stride)) + Affine(Expr(j), d.stride, 0);
  p.input = Affine(Expr(o2), 1, d.before) + FloorDiv(t, IntConst(d.stride)) - Expr(j);
  if (d.kernel % d.stride != 0) inside = Conjoin(inside, p.tap < IntConst(d.kernel));
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

  const PhaseDim dy = MakePhaseDim(p.H, p.R, *oh, p.stride, p.pad);
  const PhaseDim dx = MakePhaseDim(p.W, p.S, *ow, p.stride, p.pad);
  auto padded = Pad(*data, {0, 0, dy.before, dx.before}, {0, 0, dy.after, dx.after},
                    Const(0, p.dtype), {"n", "c", "h", "w"});
  if (!padded.ok()) return padded.status();

  // Stride 1 has one phase: the sum is the output itself. Otherwise the sum
  // runs per phase, phases outermost so that each phase's inner loop walks
  // contiguous input with one kernel tap, and an injective stage interleaves
  // the phases into the output (where epilogues then attach).
  const bool phased = p.stride > 1;
  std::vector<IterVar> axes =
      phased ? Axes({{"n", p.N}, {"k", p.K}, {"ph", p.stride}, {"pw", p.stride},
                     {"oh2", dy.per_phase}, {"ow2", dx.per_phase}})
             : Axes({{"n", p.N}, {"k", p.K}, {"oh", *oh}, {"ow", *ow}});
  const size_t spatial = phased ? 4 : 2;
  IterVar rc = Axis("rc", p.C), ry = Axis("ry", dy.taps), rx = Axis("rx", dx.taps);
  Expr inside;
  PhaseIndex y = Phase(dy, phased ? &axes[2].var : nullptr, axes[spatial].var, ry.var, inside);
  PhaseIndex x = Phase(dx, phased ? &axes[3].var : nullptr, axes[spatial + 1].var, rx.var, inside);
  Expr n(axes[0].var), k(axes[1].var), c(rc.var);
  Expr term = Read(*padded, {n, c, y.input, x.input}) * Read(*kernel, {c, k, y.tap, x.tap});
  if (inside) term = MakeSelect(inside, term, Const(0, p.dtype));
  const std::string sum_name = phased ? std::string(kOp) + "_phases" : std::string(kOp);
  auto sum = MakeCompute(sum_name, std::move(axes), Sum(term, {rc, ry, rx}), std::string(kOp));
  if (!sum.ok()) return sum.status();
  if (!phased) return BuiltOp{*sum, 1};

  std::vector<IterVar> out_axes = Axes({{"n", p.N}, {"k", p.K}, {"oh", *oh}, {"ow", *ow}});
  Expr s = IntConst(p.stride), o_h(out_axes[2].var), o_w(out_axes[3].var);
  Expr gather = Read(*sum, {Expr(out_axes[0].var), Expr(out_axes[1].var), FloorMod(o_h, s),
                            FloorMod(o_w, s), FloorDiv(o_h, s), FloorDiv(o_w, s)});
  auto out = MakeCompute(std::string(kOp), std::move(out_axes), gather, "interleave");
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace tuneforge::te::ops
