#include "common/te/ops/softmax.h"

#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"

namespace tuneforge::te::ops {
namespace {

// stage[i] = combiner(input[i, k], k: N)
absl::StatusOr<Tensor> RowReduce(const Tensor& input, Combiner combiner, std::string name) {
  std::vector<IterVar> axes = Axes({{"i", input->shape[0]}});
  IterVar k = Axis("k", input->shape[1]);
  Expr body = MakeReduce(combiner, Read(input, {Expr(axes[0].var), Expr(k.var)}), {k});
  return MakeCompute(std::move(name), std::move(axes), std::move(body), "softmax");
}

}  // namespace

absl::StatusOr<BuiltOp> Softmax(const SoftmaxParams& p) {
  if (auto s = RequirePositive("softmax", {{"M", p.M}, {"N", p.N}}); !s.ok()) return s;
  if (auto s = RequireFloat("softmax", p.dtype); !s.ok()) return s;
  Tensor data = Placeholder("data", {p.M, p.N}, p.dtype);
  auto row_max = RowReduce(data, Combiner::kMax, "row_max");
  if (!row_max.ok()) return row_max.status();

  std::vector<IterVar> axes = Axes({{"i", p.M}, {"j", p.N}});
  Expr i(axes[0].var), j(axes[1].var);
  auto exp = MakeCompute(
      "exp", axes, MakeCall(Intrinsic::kExp, {Read(data, {i, j}) - Read(*row_max, {i})}), "softmax");
  if (!exp.ok()) return exp.status();
  auto exp_sum = RowReduce(*exp, Combiner::kSum, "exp_sum");
  if (!exp_sum.ok()) return exp_sum.status();

  std::vector<IterVar> out_axes = Axes({{"i", p.M}, {"j", p.N}});
  Expr oi(out_axes[0].var), oj(out_axes[1].var);
  auto out = MakeCompute("softmax", std::move(out_axes),
                         Read(*exp, {oi, oj}) / Read(*exp_sum, {oi}), "softmax");
  if (!out.ok()) return out.status();
  return BuiltOp{*out, 1};
}

}  // namespace tuneforge::te::ops
