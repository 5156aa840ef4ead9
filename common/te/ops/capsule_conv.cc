#include "common/te/ops/capsule_conv.h"

#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/pad.h"

namespace tuneforge::te::ops {

absl::StatusOr<BuiltOp> CapsuleConv2d(const CapsuleConv2dParams& p) {
  constexpr absl::string_view kOp = "capsule_conv2d";
  if (auto s = RequirePositive(kOp, {{"N", p.N}, {"H", p.H}, {"W", p.W}, {"C", p.C}, {"K", p.K},
                                     {"R", p.R}, {"S", p.S}, {"stride", p.stride},
                                     {"capsule", p.capsule}});
      !s.ok())
    return s;
  if (auto s = RequireNonNegative(kOp, {{"pad", p.pad}}); !s.ok()) return s;
  if (auto s = RequireNumeric(kOp, p.dtype); !s.ok()) return s;
  auto oh = WindowOutputExtent(kOp, {"H", p.H, "R", p.R}, p.stride, p.pad, 1);
  if (!oh.ok()) return oh.status();
  auto ow = WindowOutputExtent(kOp, {"W", p.W, "S", p.S}, p.stride, p.pad, 1);
  if (!ow.ok()) return ow.status();

  const int64_t cap = p.capsule;
  Tensor data = Placeholder("data", {p.N, p.H, p.W, cap, cap, p.C}, p.dtype);
  Tensor weight = Placeholder("weight", {p.R, p.S, cap, cap, p.C, p.K}, p.dtype);
  auto padded = Pad(data, {0, p.pad, p.pad, 0, 0, 0}, {0, p.pad, p.pad, 0, 0, 0},
                    Const(0, p.dtype), {"n", "h", "w", "ci", "cj", "c"});
  if (!padded.ok()) return padded.status();
  std::vector<IterVar> axes = Axes(
      {{"n", p.N}, {"oh", *oh}, {"ow", *ow}, {"ci", cap}, {"cj", cap}, {"k", p.K}});
  IterVar ry = Axis("ry", p.R), rx = Axis("rx", p.S), ck = Axis("ck", cap), rc = Axis("rc", p.C);
  Expr n(axes[0].var), ci(axes[3].var), cj(axes[4].var), k(axes[5].var);
  Expr y(ry.var), x(rx.var), kk(ck.var), c(rc.var);
  Expr body = Sum(Read(*padded, {n, WindowIndex(axes[1].var, p.stride, ry.var, 1),
                                 WindowIndex(axes[2].var, p.stride, rx.var, 1), ci, kk, c}) *
                      Read(weight, {y, x, kk, cj, c, k}),
                  {ry, rx, ck, rc});
  auto out = MakeCompute(std::string(kOp), std::move(axes), std::move(body), std::string(kOp));
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 5};
}

}  // namespace tuneforge::te::ops
