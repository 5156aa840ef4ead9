// MatMul (numpy semantics, batch dimensions broadcast) and Gemm
// (alpha * A' B' + beta * C), Gemm's transposes and scales as nodes of their
// own so that the product itself is a plain matmul or dense.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/onnx/converters.h"

namespace tuneforge::graph::onnx_import {

absl::Status ConvertMatMul(ImportContext& ctx) {
  auto a = ctx.Input(0);
  if (!a.ok()) return a.status();
  auto b = ctx.Input(1);
  if (!b.ok()) return b.status();
  const Value& va = ctx.value(*a);
  const Value& vb = ctx.value(*b);
  if (va.shape.size() < 2 || vb.shape.size() < 2)
    return ctx.Unsupported("1-d operands are not supported; reshape them to [1, K] or [K, 1]");
  const int64_t M = va.shape[va.shape.size() - 2], K = va.shape.back();
  const int64_t N = vb.shape.back();
  if (vb.shape[vb.shape.size() - 2] != K)
    return ctx.Invalid(absl::StrCat("A [", absl::StrJoin(va.shape, ", "), "] and B [",
                                    absl::StrJoin(vb.shape, ", "), "] disagree on K"));
  std::vector<int64_t> batch_a(va.shape.begin(), va.shape.end() - 2);
  std::vector<int64_t> batch_b(vb.shape.begin(), vb.shape.end() - 2);
  auto batch = BroadcastShapes(ctx, batch_a, batch_b);
  if (!batch.ok()) return batch.status();
  std::vector<int64_t> out = *batch;
  out.push_back(M);
  out.push_back(N);
  return ctx.AddNode(MatMul{}, {*a, *b}, va.dtype, out).status();
}

absl::Status ConvertGemm(ImportContext& ctx) {
  auto a = ctx.Input(0);
  if (!a.ok()) return a.status();
  auto b = ctx.Input(1);
  if (!b.ok()) return b.status();
  auto trans_a = ctx.Int("transA", 0);
  auto trans_b = ctx.Int("transB", 0);
  auto alpha = ctx.Float("alpha", 1.0);
  auto beta = ctx.Float("beta", 1.0);
  for (const absl::Status& s : {trans_a.status(), trans_b.status(), alpha.status(), beta.status()})
    if (!s.ok()) return s;
  const te::DType dtype = ctx.value(*a).dtype;
  if (ctx.value(*a).shape.size() != 2 || ctx.value(*b).shape.size() != 2)
    return ctx.Invalid("A and B must be matrices");
  ValueId lhs = *a;
  if (*trans_a) {
    std::vector<int64_t> s = ctx.value(*a).shape;
    auto t = ctx.AddInternal(Transpose{{1, 0}}, {*a}, dtype, {s[1], s[0]}, "transpose_a");
    if (!t.ok()) return t.status();
    lhs = *t;
  }
  const int64_t M = ctx.value(lhs).shape[0], K = ctx.value(lhs).shape[1];
  const std::vector<int64_t> bs = ctx.value(*b).shape;
  if ((*trans_b ? bs[1] : bs[0]) != K) return ctx.Invalid("A and B disagree on K");
  const int64_t N = *trans_b ? bs[0] : bs[1];
  bool last = *alpha == 1.0 && !ctx.HasInput(2);
  auto product = [&](Op op) {
    return last ? ctx.AddNode(std::move(op), {lhs, *b}, dtype, {M, N})
                : ctx.AddInternal(std::move(op), {lhs, *b}, dtype, {M, N}, "product");
  };
  // B stored [N, K] is what a fully connected layer's weights are: dense.
  auto y = *trans_b ? product(Dense{}) : product(MatMul{});
  if (!y.ok() || last) return y.status();
  ValueId acc = *y;
  auto scalar = [&](double v, const std::string& name) {
    auto s = te::NDArray::Empty(dtype, {1});
    s->SetDouble(0, v);
    return ctx.AddConstant(*std::move(s), name);
  };
  if (*alpha != 1.0) {
    bool final_node = !ctx.HasInput(2);
    ValueId k = scalar(*alpha, ctx.node().output(0) + "/alpha");
    auto scaled = final_node ? ctx.AddNode(Binary{BinaryKind::kMul}, {acc, k}, dtype, {M, N})
                             : ctx.AddInternal(Binary{BinaryKind::kMul}, {acc, k}, dtype, {M, N}, "alpha");
    if (!scaled.ok() || final_node) return scaled.status();
    acc = *scaled;
  }
  auto c = ctx.Input(2);
  if (!c.ok()) return c.status();
  ValueId addend = *c;
  if (*beta != 1.0) {
    ValueId k = scalar(*beta, ctx.node().output(0) + "/beta");
    auto scaled = ctx.AddInternal(Binary{BinaryKind::kMul}, {*c, k}, dtype, ctx.value(*c).shape, "beta");
    if (!scaled.ok()) return scaled.status();
    addend = *scaled;
  }
  auto shape = BroadcastShapes(ctx, {M, N}, ctx.value(addend).shape);
  if (!shape.ok()) return shape.status();
  if (*shape != std::vector<int64_t>{M, N}) return ctx.Invalid("C does not broadcast to [M, N]");
  return ctx.AddNode(Binary{BinaryKind::kAdd}, {acc, addend}, dtype, {M, N}).status();
}

}  // namespace tuneforge::graph::onnx_import
