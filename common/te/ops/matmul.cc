#include "common/te/ops/matmul.h"

#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/op_inputs.h"

namespace tuneforge::te::ops {

absl::StatusOr<BuiltOp> Matmul(const MatmulParams& p, const OpInputs& inputs) {
  if (auto s = RequireInputCount("matmul", inputs, 2); !s.ok()) return s;
  if (auto s = RequirePositive("matmul", {{"M", p.M}, {"N", p.N}, {"K", p.K}}); !s.ok()) return s;
  if (auto s = RequireNumeric("matmul", p.dtype); !s.ok()) return s;
  auto a_input = OpInput("matmul", inputs, 0, "A", {p.M, p.K}, p.dtype);
  if (!a_input.ok()) return a_input.status();
  auto b_input = OpInput("matmul", inputs, 1, "B", {p.K, p.N}, p.dtype, InputKind::kWeight);
  if (!b_input.ok()) return b_input.status();
  const Tensor& a = *a_input;
  const Tensor& b = *b_input;
  std::vector<IterVar> axes = Axes({{"i", p.M}, {"j", p.N}});
  IterVar k = Axis("k", p.K);
  Expr i(axes[0].var), j(axes[1].var);
  Expr body = Sum(Read(a, {i, Expr(k.var)}) * Read(b, {Expr(k.var), j}), {k});
  auto c = MakeCompute("C", std::move(axes), std::move(body), "matmul");
  if (!c.ok()) return c.status();
  return BuiltOp{*c, 1};
}

absl::StatusOr<BuiltOp> BatchMatmul(const BatchMatmulParams& p, const OpInputs& inputs) {
  if (auto s = RequireInputCount("batch_matmul", inputs, 2); !s.ok()) return s;
  if (auto s = RequirePositive("batch_matmul", {{"B", p.B}, {"M", p.M}, {"N", p.N}, {"K", p.K}});
      !s.ok())
    return s;
  if (auto s = RequireNumeric("batch_matmul", p.dtype); !s.ok()) return s;
  auto a_input = OpInput("batch_matmul", inputs, 0, "A", {p.B, p.M, p.K}, p.dtype);
  if (!a_input.ok()) return a_input.status();
  auto b_input = OpInput("batch_matmul", inputs, 1, "B", {p.B, p.K, p.N}, p.dtype);
  if (!b_input.ok()) return b_input.status();
  const Tensor& a = *a_input;
  const Tensor& b = *b_input;
  std::vector<IterVar> axes = Axes({{"b", p.B}, {"i", p.M}, {"j", p.N}});
  IterVar k = Axis("k", p.K);
  Expr bb(axes[0].var), i(axes[1].var), j(axes[2].var), kk(k.var);
  Expr body = Sum(Read(a, {bb, i, kk}) * Read(b, {bb, kk, j}), {k});
  auto c = MakeCompute("C", std::move(axes), std::move(body), "batch_matmul");
  if (!c.ok()) return c.status();
  return BuiltOp{*c, 2};
}

absl::StatusOr<BuiltOp> Dense(const DenseParams& p, const OpInputs& inputs) {
  if (auto s = RequireInputCount("dense", inputs, 2); !s.ok()) return s;
  if (auto s = RequirePositive("dense", {{"M", p.M}, {"N", p.N}, {"K", p.K}}); !s.ok()) return s;
  if (auto s = RequireNumeric("dense", p.dtype); !s.ok()) return s;
  auto data_input = OpInput("dense", inputs, 0, "data", {p.M, p.K}, p.dtype);
  if (!data_input.ok()) return data_input.status();
  auto weight_input = OpInput("dense", inputs, 1, "weight", {p.N, p.K}, p.dtype, InputKind::kWeight);
  if (!weight_input.ok()) return weight_input.status();
  const Tensor& data = *data_input;
  const Tensor& weight = *weight_input;
  std::vector<IterVar> axes = Axes({{"i", p.M}, {"j", p.N}});
  IterVar k = Axis("k", p.K);
  Expr i(axes[0].var), j(axes[1].var), kk(k.var);
  Expr body = Sum(Read(data, {i, kk}) * Read(weight, {j, kk}), {k});
  auto out = MakeCompute("dense", std::move(axes), std::move(body), "dense");
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace tuneforge::te::ops
