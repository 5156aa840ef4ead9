#include "common/te/ops/pool.h"

#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/pad.h"

namespace tuneforge::te::ops {
namespace {

// The windowed reduction both poolings share; `combiner` picks max or sum.
absl::StatusOr<Tensor> WindowReduce(absl::string_view op, const Pool2dParams& p, Combiner combiner,
                                    std::string name) {
  if (auto s = RequirePositive(op, {{"N", p.N}, {"C", p.C}, {"H", p.H}, {"W", p.W}, {"R", p.R},
                                    {"S", p.S}, {"stride", p.stride}});
      !s.ok())
    return s;
  if (auto s = RequireNonNegative(op, {{"pad", p.pad}}); !s.ok()) return s;
  if (auto s = RequireNumeric(op, p.dtype); !s.ok()) return s;
  auto oh = WindowOutputExtent(op, {"H", p.H, "R", p.R}, p.stride, p.pad, 1);
  if (!oh.ok()) return oh.status();
  auto ow = WindowOutputExtent(op, {"W", p.W, "S", p.S}, p.stride, p.pad, 1);
  if (!ow.ok()) return ow.status();

  Tensor data = Placeholder("data", {p.N, p.C, p.H, p.W}, p.dtype);
  // Padding must never win the reduction: the combiner's identity does that.
  auto padded = Pad(data, {0, 0, p.pad, p.pad}, {0, 0, p.pad, p.pad},
                    CombinerIdentity(combiner, p.dtype), {"n", "c", "h", "w"});
  if (!padded.ok()) return padded.status();
  std::vector<IterVar> axes = Axes({{"n", p.N}, {"c", p.C}, {"oh", *oh}, {"ow", *ow}});
  IterVar ry = Axis("ry", p.R), rx = Axis("rx", p.S);
  Expr source = Read(*padded, {Expr(axes[0].var), Expr(axes[1].var),
                               WindowIndex(axes[2].var, p.stride, ry.var, 1),
                               WindowIndex(axes[3].var, p.stride, rx.var, 1)});
  return MakeCompute(std::move(name), std::move(axes), MakeReduce(combiner, source, {ry, rx}),
                     std::string(op));
}

}  // namespace

absl::StatusOr<BuiltOp> MaxPool2d(const Pool2dParams& p) {
  auto out = WindowReduce("max_pool2d", p, Combiner::kMax, "max_pool2d");
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

absl::StatusOr<BuiltOp> AvgPool2d(const Pool2dParams& p) {
  auto sum = WindowReduce("avg_pool2d", p, Combiner::kSum, "pool_sum");
  if (!sum.ok()) return sum.status();
  const Tensor& s = *sum;
  std::vector<IterVar> axes = Axes({{"n", s->shape[0]}, {"c", s->shape[1]}, {"oh", s->shape[2]},
                                    {"ow", s->shape[3]}});
  Expr body = Read(s, AxisExprs(axes)) / Const(static_cast<double>(p.R * p.S), p.dtype);
  auto out = MakeCompute("avg_pool2d", std::move(axes), std::move(body), "avg_pool2d");
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace tuneforge::te::ops
