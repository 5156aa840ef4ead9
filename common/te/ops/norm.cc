#include "common/te/ops/norm.h"

#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"

namespace tuneforge::te::ops {

absl::StatusOr<BuiltOp> Norm(const NormParams& p) {
  if (auto s = RequirePositive("norm", {{"M", p.M}, {"N", p.N}}); !s.ok()) return s;
  if (auto s = RequireFloat("norm", p.dtype); !s.ok()) return s;
  Tensor data = Placeholder("data", {p.M, p.N}, p.dtype);
  IterVar k0 = Axis("k0", p.M), k1 = Axis("k1", p.N);
  Expr x = Read(data, {Expr(k0.var), Expr(k1.var)});
  auto sq_sum = MakeCompute("sq_sum", Axes({{"i", 1}}), Sum(x * x, {k0, k1}), "norm");
  if (!sq_sum.ok()) return sq_sum.status();
  std::vector<IterVar> axes = Axes({{"i", 1}});
  Expr body = MakeCall(Intrinsic::kSqrt, {Read(*sq_sum, {Expr(axes[0].var)})});
  auto out = MakeCompute("norm", std::move(axes), std::move(body), "norm");
  if (!out.ok()) return out.status();
  return BuiltOp{*out, -1};
}

absl::StatusOr<BuiltOp> LayerNorm(const NormParams& p) {
  if (auto s = RequirePositive("layer_norm", {{"M", p.M}, {"N", p.N}}); !s.ok()) return s;
  if (auto s = RequireFloat("layer_norm", p.dtype); !s.ok()) return s;
  Tensor data = Placeholder("data", {p.M, p.N}, p.dtype);
  Tensor gamma = Placeholder("gamma", {p.N}, p.dtype);
  Tensor beta = Placeholder("beta", {p.N}, p.dtype);
  Expr inv_n = Const(1.0 / static_cast<double>(p.N), p.dtype);

  std::vector<IterVar> sum_axes = Axes({{"i", p.M}});
  IterVar k = Axis("k", p.N);
  auto row_sum = MakeCompute(
      "row_sum", sum_axes, Sum(Read(data, {Expr(sum_axes[0].var), Expr(k.var)}), {k}), "layer_norm");
  if (!row_sum.ok()) return row_sum.status();

  std::vector<IterVar> var_axes = Axes({{"i", p.M}});
  IterVar k2 = Axis("k", p.N);
  Expr vi(var_axes[0].var);
  Expr dev = Read(data, {vi, Expr(k2.var)}) - Read(*row_sum, {vi}) * inv_n;
  auto sq_dev_sum = MakeCompute("sq_dev_sum", var_axes, Sum(dev * dev, {k2}), "layer_norm");
  if (!sq_dev_sum.ok()) return sq_dev_sum.status();

  std::vector<IterVar> axes = Axes({{"i", p.M}, {"j", p.N}});
  Expr i(axes[0].var), j(axes[1].var);
  Expr centered = Read(data, {i, j}) - Read(*row_sum, {i}) * inv_n;
  Expr scale = MakeCall(Intrinsic::kRsqrt, {Read(*sq_dev_sum, {i}) * inv_n +
                                            Const(kLayerNormEpsilon, p.dtype)});
  Expr body = centered * scale * Read(gamma, {j}) + Read(beta, {j});
  auto out = MakeCompute("layer_norm", std::move(axes), std::move(body), "layer_norm");
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace tuneforge::te::ops
