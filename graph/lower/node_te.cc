#include "graph/lower/node_te.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/overloaded.h"
#include "common/te/ops/indexing.h"
#include "common/te/ops/pad.h"

namespace tuneforge::graph {
namespace {

using te::Expr;
using te::IterVar;
using te::Tensor;

// Names stages "<prefix>", "<prefix>_<what>" so the stages of one node never
// collide with each other or with another node's.
struct Namer {
  std::string prefix;
  std::string operator()(absl::string_view what = "") const {
    return what.empty() ? prefix : absl::StrCat(prefix, "_", what);
  }
};

std::vector<IterVar> AxesFor(const std::vector<int64_t>& shape, absl::string_view letter = "i") {
  std::vector<IterVar> axes;
  for (size_t d = 0; d < shape.size(); ++d)
    axes.push_back(te::ops::Axis(absl::StrCat(letter, d), shape[d]));
  return axes;
}

// Reads `in` at the output position `index` under numpy broadcasting: the
// trailing dimensions align; a dimension of 1 is read at 0.
Expr BroadcastRead(const Tensor& in, const std::vector<Expr>& index,
                   const std::vector<int64_t>& out_shape) {
  size_t rank = in->shape.size(), out_rank = out_shape.size();
  std::vector<Expr> at;
  for (size_t d = 0; d < rank; ++d) {
    size_t od = out_rank - rank + d;
    at.push_back(in->shape[d] == 1 && out_shape[od] != 1 ? te::IntConst(0) : index[od]);
  }
  return te::Read(in, at);
}

absl::StatusOr<Tensor> Elementwise(const std::string& name, const std::vector<int64_t>& shape,
                                   const std::function<Expr(const std::vector<Expr>&)>& body) {
  std::vector<IterVar> axes = AxesFor(shape);
  Expr e = body(te::ops::AxisExprs(axes));
  return te::MakeCompute(name, std::move(axes), std::move(e), "elementwise");
}

Expr UnaryExpr(UnaryKind kind, const Expr& x) {
  te::DType t = x.dtype();
  auto c = [&](double v) { return te::Const(v, t); };
  switch (kind) {
    case UnaryKind::kRelu: return te::Max(x, c(0));
    case UnaryKind::kSigmoid: return te::MakeCall(te::Intrinsic::kSigmoid, {x});
    case UnaryKind::kTanh: return te::MakeCall(te::Intrinsic::kTanh, {x});
    case UnaryKind::kErf: return te::MakeCall(te::Intrinsic::kErf, {x});
    case UnaryKind::kSqrt: return te::MakeCall(te::Intrinsic::kSqrt, {x});
    case UnaryKind::kExp: return te::MakeCall(te::Intrinsic::kExp, {x});
    case UnaryKind::kLog: return te::MakeCall(te::Intrinsic::kLog, {x});
    case UnaryKind::kAbs: return te::MakeCall(te::Intrinsic::kAbs, {x});
    case UnaryKind::kNeg: return -x;
    case UnaryKind::kReciprocal: return c(1) / x;
    case UnaryKind::kFloor: return te::MakeCall(te::Intrinsic::kFloor, {x});
    case UnaryKind::kCeil: return te::MakeCall(te::Intrinsic::kCeil, {x});
    case UnaryKind::kHardSwish:
      return x * te::Max(c(0), te::Min(c(1), x * c(1.0 / 6.0) + c(0.5)));
    case UnaryKind::kGelu:
      return x * c(0.5) * (c(1) + te::MakeCall(te::Intrinsic::kErf, {x * c(0.70710678118654752440)}));
  }
  return x;
}

Expr BinaryExpr(BinaryKind kind, const Expr& a, const Expr& b) {
  switch (kind) {
    case BinaryKind::kAdd: return a + b;
    case BinaryKind::kSub: return a - b;
    case BinaryKind::kMul: return a * b;
    case BinaryKind::kDiv: return a / b;
    case BinaryKind::kPow: return te::MakeCall(te::Intrinsic::kPow, {a, b});
    case BinaryKind::kMax: return te::Max(a, b);
    case BinaryKind::kMin: return te::Min(a, b);
  }
  return a;
}

// Convolution over any number of spatial dimensions with explicit pads per
// side: a pad stage, then the windowed sum (grouped when group > 1).
absl::StatusOr<Tensor> ConvTensor(const Conv& c, const std::vector<Tensor>& in,
                                  const std::vector<int64_t>& out_shape, const Namer& name) {
  const Tensor& data = in[0];
  const Tensor& weight = in[1];
  size_t spatial = data->shape.size() - 2;
  std::vector<int64_t> before = {0, 0}, after = {0, 0};
  for (size_t d = 0; d < spatial; ++d) {
    before.push_back(c.pads_begin[d]);
    after.push_back(c.pads_end[d]);
  }
  auto padded = te::ops::Pad(data, before, after, te::Const(0, data->dtype), {}, name("pad"));
  if (!padded.ok()) return padded.status();
  const int64_t c_per_group = weight->shape[1], k_per_group = out_shape[1] / c.group;
  std::vector<IterVar> axes = AxesFor(out_shape);
  std::vector<IterVar> reduce = {te::ops::Axis("rc", c_per_group)};
  for (size_t d = 0; d < spatial; ++d)
    reduce.push_back(te::ops::Axis(absl::StrCat("r", d), weight->shape[2 + d]));
  Expr k(axes[1].var), rc(reduce[0].var);
  Expr channel = c.group == 1 ? rc
                              : te::ops::Affine(te::FloorDiv(k, te::IntConst(k_per_group)),
                                                c_per_group, 0) + rc;
  std::vector<Expr> data_index = {Expr(axes[0].var), channel}, weight_index = {k, rc};
  for (size_t d = 0; d < spatial; ++d) {
    data_index.push_back(
        te::ops::WindowIndex(axes[2 + d].var, c.strides[d], reduce[1 + d].var, c.dilations[d]));
    weight_index.push_back(Expr(reduce[1 + d].var));
  }
  Expr body = te::Sum(te::Read(*padded, data_index) * te::Read(weight, weight_index), reduce);
  auto out = te::MakeCompute(name(), std::move(axes), std::move(body), "conv");
  if (!out.ok() || in.size() < 3) return out;
  const Tensor& bias = in[2];
  return Elementwise(name("bias"), out_shape, [&](const std::vector<Expr>& i) {
    return te::Read(*out, i) + te::Read(bias, {i[1]});
  });
}

// Transposed convolution as the gradient of a convolution: output position o
// (t = o + pad) takes input position (t - r*dilation) / stride for the
// kernel taps r where that divides evenly and lies inside the input.
//
// With dilation 1 the taps that divide evenly are known per output phase:
// r = t % stride + stride*j, input t // stride - j, j < ceil(R / stride).
// Reducing over j instead of r skips the zero-inserted positions, so a
// stride-2 transposed convolution does a quarter of the multiply-adds of
// the zero-inserting form (one sub-convolution per output phase, written as
// one stage).
absl::StatusOr<Tensor> ConvTransposeTensor(const ConvTranspose& c, const std::vector<Tensor>& in,
                                           const std::vector<int64_t>& out_shape,
                                           const Namer& name) {
  const Tensor& data = in[0];
  const Tensor& weight = in[1];  // [C, K/group, kernel...]
  size_t spatial = data->shape.size() - 2;
  const int64_t c_per_group = data->shape[1] / c.group, k_per_group = weight->shape[1];
  bool phases = true;
  for (size_t d = 0; d < spatial; ++d) phases = phases && c.dilations[d] == 1;
  std::vector<IterVar> axes = AxesFor(out_shape);
  std::vector<IterVar> reduce = {te::ops::Axis("rc", c_per_group)};
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t R = weight->shape[2 + d], s = c.strides[d];
    reduce.push_back(te::ops::Axis(absl::StrCat("r", d), phases ? (R + s - 1) / s : R));
  }
  Expr k(axes[1].var), rc(reduce[0].var);
  Expr channel = c.group == 1 ? rc
                              : te::ops::Affine(te::FloorDiv(k, te::IntConst(k_per_group)),
                                                c_per_group, 0) + rc;
  Expr k_in_group = c.group == 1 ? k : te::FloorMod(k, te::IntConst(k_per_group));
  Expr valid;
  std::vector<Expr> data_index = {Expr(axes[0].var), channel}, weight_index = {channel, k_in_group};
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t R = weight->shape[2 + d], s = c.strides[d], H = data->shape[2 + d];
    Expr t = te::ops::Affine(Expr(axes[2 + d].var), 1, c.pads_begin[d]);
    Expr j(reduce[1 + d].var);
    Expr tap, q;
    if (phases) {
      tap = s == 1 ? j : te::FloorMod(t, te::IntConst(s)) + te::ops::Affine(j, s, 0);
      q = (s == 1 ? t : te::FloorDiv(t, te::IntConst(s))) - j;
      if (R % s != 0) valid = te::ops::Conjoin(valid, tap < te::IntConst(R));
    } else {
      tap = j;
      Expr pos = t - te::ops::Affine(j, c.dilations[d], 0);
      q = s == 1 ? pos : te::FloorDiv(pos, te::IntConst(s));
      if (s != 1) valid = te::ops::Conjoin(valid, te::EQ(te::FloorMod(pos, te::IntConst(s)), te::IntConst(0)));
    }
    valid = te::ops::Conjoin(valid, q >= te::IntConst(0));
    valid = te::ops::Conjoin(valid, q < te::IntConst(H));
    data_index.push_back(q);
    weight_index.push_back(tap);
  }
  Expr term = te::MakeSelect(valid, te::Read(data, data_index) * te::Read(weight, weight_index),
                             te::Const(0, data->dtype));
  auto out = te::MakeCompute(name(), std::move(axes), te::Sum(term, reduce), "conv_transpose");
  if (!out.ok() || in.size() < 3) return out;
  const Tensor& bias = in[2];
  return Elementwise(name("bias"), out_shape, [&](const std::vector<Expr>& i) {
    return te::Read(*out, i) + te::Read(bias, {i[1]});
  });
}

// numpy matmul for operands of rank >= 2: batch dimensions broadcast.
absl::StatusOr<Tensor> MatMulTensor(const std::vector<Tensor>& in,
                                    const std::vector<int64_t>& out_shape, const Namer& name) {
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  size_t rank = out_shape.size();
  std::vector<IterVar> axes = AxesFor(out_shape);
  IterVar k = te::ops::Axis("k", a->shape.back());
  std::vector<Expr> index = te::ops::AxisExprs(axes);
  std::vector<int64_t> batch(out_shape.begin(), out_shape.end() - 2);
  auto batch_index = [&](const Tensor& t, Expr row, Expr col) {
    std::vector<Expr> at;
    size_t t_batch = t->shape.size() - 2;
    for (size_t d = 0; d < t_batch; ++d) {
      size_t od = rank - 2 - t_batch + d;
      at.push_back(t->shape[d] == 1 && out_shape[od] != 1 ? te::IntConst(0) : index[od]);
    }
    at.push_back(row);
    at.push_back(col);
    return at;
  };
  Expr body = te::Sum(te::Read(a, batch_index(a, index[rank - 2], Expr(k.var))) *
                          te::Read(b, batch_index(b, Expr(k.var), index[rank - 1])),
                      {k});
  return te::MakeCompute(name(), std::move(axes), std::move(body), "matmul");
}

// Pooling over any number of spatial dims. The 2-d reduce axes keep their
// names (ry, rx) so 2-d pool stages print as before.
absl::StatusOr<Tensor> PoolTensor(const Pool& p, const Tensor& x,
                                  const std::vector<int64_t>& out_shape, const Namer& name) {
  te::Combiner combiner = p.kind == PoolKind::kMax ? te::Combiner::kMax : te::Combiner::kSum;
  const size_t spatial = p.kernel.size();
  std::vector<int64_t> before = {0, 0}, after = {0, 0};
  before.insert(before.end(), p.pads_begin.begin(), p.pads_begin.end());
  after.insert(after.end(), p.pads_end.begin(), p.pads_end.end());
  auto padded = te::ops::Pad(x, before, after, te::CombinerIdentity(combiner, x->dtype), {},
                             name("pad"));
  if (!padded.ok()) return padded.status();
  std::vector<IterVar> axes = AxesFor(out_shape);
  std::vector<IterVar> window;
  std::vector<Expr> at = {Expr(axes[0].var), Expr(axes[1].var)};
  for (size_t d = 0; d < spatial; ++d) {
    std::string r = spatial == 2 ? (d == 0 ? "ry" : "rx") : absl::StrCat("r", d);
    window.push_back(te::ops::Axis(r, p.kernel[d]));
    int64_t dilation = p.dilations.empty() ? 1 : p.dilations[d];
    at.push_back(te::ops::WindowIndex(axes[2 + d].var, p.strides[d], window[d].var, dilation));
  }
  Expr source = te::Read(*padded, at);
  bool average = p.kind == PoolKind::kAverage;
  auto reduced = te::MakeCompute(average ? name("sum") : name(), std::move(axes),
                                 te::MakeReduce(combiner, source, window), "pool");
  if (!reduced.ok() || !average) return reduced;
  const Tensor& sum = *reduced;
  return Elementwise(name(), out_shape, [&](const std::vector<Expr>& i) {
    te::DType t = x->dtype;
    if (p.count_include_pad) {
      int64_t cells = 1;
      for (int64_t k : p.kernel) cells *= k;
      return te::Read(sum, i) / te::Const(static_cast<double>(cells), t);
    }
    // The window's cells inside the unpadded input, per dimension.
    auto inside = [&](const Expr& o, int64_t stride, int64_t pad, int64_t k, int64_t extent) {
      Expr start = te::ops::Affine(o, stride, -pad);
      return te::Min(start + te::IntConst(k), te::IntConst(extent)) -
             te::Max(start, te::IntConst(0));
    };
    Expr count;
    for (size_t d = 0; d < spatial; ++d) {
      Expr n = inside(i[2 + d], p.strides[d], p.pads_begin[d], p.kernel[d], x->shape[2 + d]);
      count = count ? count * n : n;
    }
    return te::Read(sum, i) / te::MakeCast(t, count);
  });
}

// Constant padding; negative amounts crop. Only the bounds that can fail
// are tested.
absl::StatusOr<Tensor> PadTensor(const Pad& p, const Tensor& x,
                                 const std::vector<int64_t>& out_shape, const Namer& name) {
  return Elementwise(name(), out_shape, [&](const std::vector<Expr>& i) {
    Expr inside;
    std::vector<Expr> at;
    for (size_t d = 0; d < i.size(); ++d) {
      const int64_t b = p.pads_begin[d];
      if (b > 0) inside = te::ops::Conjoin(inside, i[d] >= te::IntConst(b));
      if (p.pads_end[d] > 0)
        inside = te::ops::Conjoin(inside, i[d] < te::IntConst(b + x->shape[d]));
      at.push_back(te::ops::Affine(i[d], 1, -b));
    }
    Expr read = te::Read(x, at);
    return inside ? te::MakeSelect(inside, read, te::Const(p.value, x->dtype)) : read;
  });
}

// A reduction over `axes` of x (sorted), keeping them as 1s when keepdims.
absl::StatusOr<Tensor> ReduceOver(const Tensor& x, const std::vector<int64_t>& axes_to_reduce,
                                  bool keepdims, te::Combiner combiner, const std::string& name) {
  std::vector<int64_t> out_shape;
  std::vector<bool> reduced(x->shape.size(), false);
  for (int64_t a : axes_to_reduce) reduced[a] = true;
  for (size_t d = 0; d < x->shape.size(); ++d)
    if (!reduced[d]) out_shape.push_back(x->shape[d]);
    else if (keepdims) out_shape.push_back(1);
  if (out_shape.empty()) out_shape.push_back(1);
  std::vector<IterVar> axes = AxesFor(out_shape);
  std::vector<IterVar> raxes;
  std::vector<Expr> at;
  size_t od = 0;
  for (size_t d = 0; d < x->shape.size(); ++d) {
    if (reduced[d]) {
      raxes.push_back(te::ops::Axis(absl::StrCat("k", d), x->shape[d]));
      at.push_back(Expr(raxes.back().var));
      if (keepdims) ++od;
    } else {
      at.push_back(Expr(axes[od++].var));
    }
  }
  return te::MakeCompute(name, std::move(axes), te::MakeReduce(combiner, te::Read(x, at), raxes),
                         "reduce");
}

double ReducedCount(const Tensor& x, const std::vector<int64_t>& axes) {
  double n = 1;
  for (int64_t a : axes) n *= static_cast<double>(x->shape[a]);
  return n;
}

absl::StatusOr<Tensor> SoftmaxTensor(const Softmax& s, const Tensor& x, const Namer& name) {
  auto max = ReduceOver(x, s.axes, true, te::Combiner::kMax, name("max"));
  if (!max.ok()) return max.status();
  auto exp = Elementwise(name("exp"), x->shape, [&](const std::vector<Expr>& i) {
    return te::MakeCall(te::Intrinsic::kExp, {te::Read(x, i) - BroadcastRead(*max, i, x->shape)});
  });
  if (!exp.ok()) return exp.status();
  auto sum = ReduceOver(*exp, s.axes, true, te::Combiner::kSum, name("sum"));
  if (!sum.ok()) return sum.status();
  return Elementwise(name(), x->shape, [&](const std::vector<Expr>& i) {
    return te::Read(*exp, i) / BroadcastRead(*sum, i, x->shape);
  });
}

absl::StatusOr<Tensor> LayerNormTensor(const LayerNorm& ln, const std::vector<Tensor>& in,
                                       const Namer& name) {
  const Tensor& x = in[0];
  std::vector<int64_t> axes;
  for (int64_t d = ln.axis; d < static_cast<int64_t>(x->shape.size()); ++d) axes.push_back(d);
  Expr inv_n = te::Const(1.0 / ReducedCount(x, axes), x->dtype);
  auto sum = ReduceOver(x, axes, true, te::Combiner::kSum, name("sum"));
  if (!sum.ok()) return sum.status();
  auto centered = Elementwise(name("centered"), x->shape, [&](const std::vector<Expr>& i) {
    return te::Read(x, i) - BroadcastRead(*sum, i, x->shape) * inv_n;
  });
  if (!centered.ok()) return centered.status();
  auto sq = Elementwise(name("sq"), x->shape, [&](const std::vector<Expr>& i) {
    return te::Read(*centered, i) * te::Read(*centered, i);
  });
  if (!sq.ok()) return sq.status();
  auto sq_sum = ReduceOver(*sq, axes, true, te::Combiner::kSum, name("sq_sum"));
  if (!sq_sum.ok()) return sq_sum.status();
  return Elementwise(name(), x->shape, [&](const std::vector<Expr>& i) {
    Expr scale = te::MakeCall(te::Intrinsic::kRsqrt, {BroadcastRead(*sq_sum, i, x->shape) * inv_n +
                                                      te::Const(ln.epsilon, x->dtype)});
    Expr y = te::Read(*centered, i) * scale * BroadcastRead(in[1], i, x->shape);
    return in.size() > 2 ? y + BroadcastRead(in[2], i, x->shape) : y;
  });
}

// Row-major position of `index` in `shape`, and back: what a reshape maps.
Expr Flatten(const std::vector<Expr>& index, const std::vector<int64_t>& shape) {
  Expr flat;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat ? te::ops::Affine(flat, shape[d], 0) + index[d] : index[d];
  return flat;
}

std::vector<Expr> Unflatten(const Expr& flat, const std::vector<int64_t>& shape) {
  std::vector<Expr> index(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    Expr q = stride == 1 ? flat : te::FloorDiv(flat, te::IntConst(stride));
    index[d] = d == 0 ? q : te::FloorMod(q, te::IntConst(shape[d]));
    stride *= shape[d];
  }
  return index;
}

absl::StatusOr<Tensor> ConcatTensor(const Concat& c, const std::vector<Tensor>& in,
                                    const std::vector<int64_t>& out_shape, const Namer& name) {
  return Elementwise(name(), out_shape, [&](const std::vector<Expr>& i) {
    // select(i >= offset_k, in_k, <the inputs before k>): each read sits
    // where its own offset range holds.
    Expr value;
    int64_t offset = 0;
    for (const Tensor& t : in) {
      std::vector<Expr> at = i;
      at[c.axis] = te::ops::Affine(i[c.axis], 1, -offset);
      Expr read = te::Read(t, at);
      value = value ? te::MakeSelect(i[c.axis] >= te::IntConst(offset), read, value) : read;
      offset += t->shape[c.axis];
    }
    return value;
  });
}

absl::StatusOr<Tensor> GatherTensor(const Graph& graph, const Node& node, const Gather& g,
                                    const std::vector<Tensor>& in,
                                    const std::vector<int64_t>& out_shape, const Namer& name) {
  const Value& indices = graph.values[node.inputs[1]];
  if (!indices.is_constant())
    return absl::UnimplementedError(absl::StrCat(
        "node '", node.name, "' (Gather): the indices must be a constant (an initializer or "
        "folded at import); run-time indices are not supported"));
  const te::NDArray& ind = *indices.constant;
  const int64_t extent = in[0]->shape[g.axis];
  size_t q = indices.shape.size();
  return Elementwise(name(), out_shape, [&](const std::vector<Expr>& i) {
    // Output index = data[:axis] + indices dims + data[axis+1:]; the chosen
    // position is a select chain over the constant indices.
    std::vector<Expr> ind_index(i.begin() + g.axis, i.begin() + g.axis + q);
    Expr flat = q == 0 ? te::IntConst(0) : Flatten(ind_index, indices.shape);
    Expr chosen;
    for (int64_t f = ind.num_elements(); f-- > 0;) {
      int64_t v = ind.GetInt(f);
      if (v < 0) v += extent;
      Expr pos = te::IntConst(v);
      chosen = chosen ? te::MakeSelect(te::EQ(flat, te::IntConst(f)), pos, chosen) : pos;
    }
    std::vector<Expr> at(i.begin(), i.begin() + g.axis);
    at.push_back(chosen);
    for (size_t d = g.axis + q; d < i.size(); ++d) at.push_back(i[d]);
    return te::Read(in[0], at);
  });
}

}  // namespace

absl::StatusOr<Tensor> BuildNodeTensor(const Graph& graph, const Node& node,
                                       const std::vector<Tensor>& inputs,
                                       const std::string& prefix) {
  const Value& out = graph.values[node.output];
  const std::vector<int64_t>& shape = out.shape;
  Namer name{prefix};
  const Tensor& x = inputs[0];
  return std::visit(
      Overloaded{
          [&](const Conv& c) { return ConvTensor(c, inputs, shape, name); },
          [&](const ConvTranspose& c) { return ConvTransposeTensor(c, inputs, shape, name); },
          [&](const MatMul&) { return MatMulTensor(inputs, shape, name); },
          [&](const Dense&) -> absl::StatusOr<Tensor> {
            IterVar k = te::ops::Axis("k", x->shape[1]);
            std::vector<IterVar> axes = AxesFor(shape);
            Expr i(axes[0].var), j(axes[1].var), kk(k.var);
            return te::MakeCompute(name(), std::move(axes),
                                   te::Sum(te::Read(x, {i, kk}) * te::Read(inputs[1], {j, kk}), {k}),
                                   "dense");
          },
          [&](const Unary& u) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              return UnaryExpr(u.kind, te::Read(x, i));
            });
          },
          [&](const Clip& c) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              Expr v = te::Read(x, i);
              if (!std::isinf(c.min)) v = te::Max(v, te::Const(c.min, x->dtype));
              if (!std::isinf(c.max)) v = te::Min(v, te::Const(c.max, x->dtype));
              return v;
            });
          },
          [&](const LeakyRelu& l) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              Expr v = te::Read(x, i);
              return te::MakeSelect(v > te::Const(0, x->dtype), v, v * te::Const(l.alpha, x->dtype));
            });
          },
          [&](const HardSigmoid& h) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              te::DType t = x->dtype;
              Expr v = te::Read(x, i) * te::Const(h.alpha, t) + te::Const(h.beta, t);
              return te::Max(te::Const(0, t), te::Min(te::Const(1, t), v));
            });
          },
          [&](const Binary& b) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              return BinaryExpr(b.kind, BroadcastRead(inputs[0], i, shape),
                                BroadcastRead(inputs[1], i, shape));
            });
          },
          [&](const BatchNorm& bn) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              te::DType t = x->dtype;
              Expr c = i[1];
              Expr inv_std = te::MakeCall(te::Intrinsic::kRsqrt,
                                          {te::Read(inputs[4], {c}) + te::Const(bn.epsilon, t)});
              return (te::Read(x, i) - te::Read(inputs[3], {c})) * inv_std *
                         te::Read(inputs[1], {c}) + te::Read(inputs[2], {c});
            });
          },
          [&](const Pool& p) { return PoolTensor(p, x, shape, name); },
          [&](const Reduce& r) -> absl::StatusOr<Tensor> {
            te::Combiner combiner = r.kind == ReduceKind::kMax   ? te::Combiner::kMax
                                    : r.kind == ReduceKind::kMin ? te::Combiner::kMin
                                                                 : te::Combiner::kSum;
            if (r.kind != ReduceKind::kMean) return ReduceOver(x, r.axes, r.keepdims, combiner, name());
            auto sum = ReduceOver(x, r.axes, r.keepdims, combiner, name("sum"));
            if (!sum.ok()) return sum.status();
            double n = ReducedCount(x, r.axes);
            return Elementwise(name(), (*sum)->shape, [&](const std::vector<Expr>& i) {
              return te::Read(*sum, i) * te::Const(1.0 / n, x->dtype);
            });
          },
          [&](const Softmax& s) { return SoftmaxTensor(s, x, name); },
          [&](const LayerNorm& ln) { return LayerNormTensor(ln, inputs, name); },
          [&](const Reshape&) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              return te::Read(x, Unflatten(Flatten(i, shape), x->shape));
            });
          },
          [&](const Transpose& t) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              std::vector<Expr> at(i.size());
              for (size_t d = 0; d < i.size(); ++d) at[t.perm[d]] = i[d];
              return te::Read(x, at);
            });
          },
          [&](const Concat& c) { return ConcatTensor(c, inputs, shape, name); },
          [&](const Slice& s) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              std::vector<Expr> at;
              for (size_t d = 0; d < i.size(); ++d) at.push_back(te::ops::Affine(i[d], s.steps[d], s.starts[d]));
              return te::Read(x, at);
            });
          },
          [&](const Pad& p) { return PadTensor(p, x, shape, name); },
          [&](const Gather& g) { return GatherTensor(graph, node, g, inputs, shape, name); },
          [&](const Cast& c) {
            return Elementwise(name(), shape, [&](const std::vector<Expr>& i) {
              return te::MakeCast(c.to, te::Read(x, i));
            });
          },
      },
      node.op);
}

}  // namespace tuneforge::graph
