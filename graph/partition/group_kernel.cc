#include "graph/partition/group_kernel.h"

#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/te/ops/conv.h"
#include "common/te/ops/conv_transpose.h"
#include "common/te/ops/depthwise_conv.h"
#include "common/te/ops/epilogue.h"
#include "common/te/ops/matmul.h"
#include "common/te/workload_forms.h"
#include "common/te/ops/winograd_conv.h"
#include "common/te/workload.h"
#include "graph/lower/node_te.h"

namespace tuneforge::graph {
namespace {

using te::Tensor;

// Placeholders of the DAG being built and the values behind them.
struct Inputs {
  std::vector<std::pair<Tensor, ValueId>> bound;
  // A model's constant (a weight) is a constant placeholder: the kernel may
  // read it in a layout rewritten once (TensorNode::constant).
  Tensor Add(const Graph& g, ValueId v, std::vector<int64_t> shape) {
    std::string name = absl::StrCat("in", bound.size());
    Tensor t = g.values[v].is_constant()
                   ? te::ConstantPlaceholder(std::move(name), std::move(shape), g.values[v].dtype)
                   : te::Placeholder(std::move(name), std::move(shape), g.values[v].dtype);
    bound.push_back({t, v});
    return t;
  }
  Tensor Add(const Graph& g, ValueId v) { return Add(g, v, g.values[v].shape); }
  // The kernel's arguments: the value behind each placeholder `dag` reads,
  // in its InputOps() order (a bound tensor no stage reads is left out),
  // then `output`.
  std::vector<ValueId> ArgsOf(const te::ComputeDag& dag, ValueId output) const {
    std::vector<ValueId> args;
    for (int op_index : dag.InputOps())
      for (const auto& [t, v] : bound)
        if (t.get() == dag.ops()[op_index].get()) args.push_back(v);
    args.push_back(output);
    return args;
  }
};

// The library op at a group's root: the op's spec name and keys.
struct LibraryRoot {
  te::ops::BuiltOp built;
  std::string op;
  std::vector<std::pair<std::string, int64_t>> keys;
  std::vector<std::string> epilogues;
};

bool AllEqual(const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x != v[0]) return false;
  return true;
}

// A convolution's optional third input, its bias, as the library's epilogue.
std::optional<LibraryRoot> WithBias(const Graph& g, const Node& n, int64_t K, Inputs& in, LibraryRoot root) {
  if (n.inputs.size() <= 2) return root;
  auto biased = te::ops::ApplyEpilogue("bias", root.built, {in.Add(g, n.inputs[2], {K})});
  if (!biased.ok()) return std::nullopt;
  root.built = *biased;
  root.epilogues.push_back("bias");
  return root;
}

// Winograd's F(4x4, 3x3) where it computes the same convolution (the
// tile: workload_forms.h).
constexpr int64_t kWinogradTile = te::kWinogradFormTile;

bool WinogradComputes(const Conv& c, int64_t R, int64_t S, int64_t stride, int64_t dilation) {
  return R == 3 && S == 3 && stride == 1 && dilation == 1 && c.group == 1;
}

std::optional<LibraryRoot> ConvRoot(const Graph& g, const Node& n, const Conv& c, Inputs& in, ConvAlgorithm conv) {
  const Value& x = g.values[n.inputs[0]];
  const Value& w = g.values[n.inputs[1]];
  if (x.shape.size() != 4 || c.pads_begin != c.pads_end || !AllEqual(c.pads_begin) ||
      !AllEqual(c.strides) || !AllEqual(c.dilations))
    return std::nullopt;
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const int64_t K = w.shape[0], R = w.shape[2], S = w.shape[3];
  const int64_t stride = c.strides[0], pad = c.pads_begin[0], dilation = c.dilations[0];
  LibraryRoot root;
  Tensor data = in.Add(g, n.inputs[0]);
  absl::StatusOr<te::ops::BuiltOp> built;
  if (c.group == C && c.group > 1 && K % C == 0) {
    // Depthwise: the weight [C*M, 1, R, S] is the library's [C, M, R, S].
    const int64_t M = K / C;
    Tensor kernel = in.Add(g, n.inputs[1], {C, M, R, S});
    built = te::ops::DepthwiseConv2d({N, C, H, W, R, S, stride, pad, dilation, M, x.dtype}, {data, kernel});
    root.op = "depthwise_conv2d";
    root.keys = {{"N", N}, {"C", C}, {"H", H}, {"W", W}, {"R", R}, {"S", S}, {"stride", stride},
                 {"pad", pad}, {"dilation", dilation}, {"M", M}};
  } else {
    Tensor kernel = in.Add(g, n.inputs[1]);
    if (conv == ConvAlgorithm::kWinograd && WinogradComputes(c, R, S, stride, dilation)) {
      built = te::ops::WinogradConv2d({N, C, H, W, K, pad, kWinogradTile, x.dtype}, {data, kernel});
      root.op = "conv2d_winograd";
      root.keys = {{"N", N}, {"C", C}, {"H", H}, {"W", W}, {"K", K}, {"pad", pad}, {"tile", kWinogradTile}};
      if (built.ok()) {
        root.built = *built;
        return WithBias(g, n, K, in, std::move(root));
      }
    }
    built = te::ops::Conv2d({N, C, H, W, K, R, S, stride, pad, dilation, c.group, x.dtype}, {data, kernel});
    root.op = "conv2d";
    root.keys = {{"N", N}, {"C", C}, {"H", H}, {"W", W}, {"K", K}, {"R", R}, {"S", S},
                 {"stride", stride}, {"pad", pad}, {"dilation", dilation}, {"groups", c.group}};
  }
  if (!built.ok()) return std::nullopt;
  root.built = *built;
  return WithBias(g, n, K, in, std::move(root));
}

std::optional<LibraryRoot> ConvTransposeRoot(const Graph& g, const Node& n, const ConvTranspose& c, Inputs& in) {
  const Value& x = g.values[n.inputs[0]];
  const Value& w = g.values[n.inputs[1]];
  const Value& y = g.values[n.output];
  if (x.shape.size() != 4 || c.group != 1 || c.pads_begin != c.pads_end || !AllEqual(c.pads_begin) ||
      !AllEqual(c.strides) || c.dilations != std::vector<int64_t>{1, 1})
    return std::nullopt;
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const int64_t K = w.shape[1], R = w.shape[2], S = w.shape[3];
  const int64_t stride = c.strides[0], pad = c.pads_begin[0];
  // The output padding the output's extent implies, the same along both axes.
  const int64_t op_h = y.shape[2] - ((H - 1) * stride - 2 * pad + R);
  const int64_t op_w = y.shape[3] - ((W - 1) * stride - 2 * pad + S);
  if (op_h != op_w || op_h < 0 || op_h >= stride) return std::nullopt;
  LibraryRoot root;
  Tensor data = in.Add(g, n.inputs[0]);
  Tensor kernel = in.Add(g, n.inputs[1]);
  auto built = te::ops::Conv2dTranspose({N, C, H, W, K, R, S, stride, pad, op_h, x.dtype}, {data, kernel});
  if (!built.ok()) return std::nullopt;
  root.built = *built;
  root.op = "conv2d_transpose";
  root.keys = {{"N", N}, {"C", C}, {"H", H}, {"W", W}, {"K", K}, {"R", R}, {"S", S},
               {"stride", stride}, {"pad", pad}, {"output_padding", op_h}};
  return WithBias(g, n, K, in, std::move(root));
}

std::optional<LibraryRoot> MatMulRoot(const Graph& g, const Node& n, Inputs& in) {
  const Value& a = g.values[n.inputs[0]];
  const Value& b = g.values[n.inputs[1]];
  const int64_t K = a.shape.back(), N = b.shape.back();
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < a.shape.size(); ++d) rows *= a.shape[d];
  LibraryRoot root;
  absl::StatusOr<te::ops::BuiltOp> built;
  if (b.shape.size() == 2) {
    // [.., M, K] x [K, N]: the batch dimensions are more rows of one matmul.
    Tensor lhs = in.Add(g, n.inputs[0], {rows, K});
    Tensor rhs = in.Add(g, n.inputs[1]);
    built = te::ops::Matmul({rows, N, K, a.dtype}, {lhs, rhs});
    root.op = "matmul";
    root.keys = {{"M", rows}, {"N", N}, {"K", K}};
  } else if (a.shape.size() == b.shape.size() &&
             std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin())) {
    const int64_t M = a.shape[a.shape.size() - 2], B = rows / M;
    Tensor lhs = in.Add(g, n.inputs[0], {B, M, K});
    Tensor rhs = in.Add(g, n.inputs[1], {B, K, N});
    built = te::ops::BatchMatmul({B, M, N, K, a.dtype}, {lhs, rhs});
    root.op = "batch_matmul";
    root.keys = {{"B", B}, {"M", M}, {"N", N}, {"K", K}};
  } else {
    return std::nullopt;
  }
  if (!built.ok()) return std::nullopt;
  root.built = *built;
  return root;
}

std::optional<LibraryRoot> Root(const Graph& g, const Node& n, Inputs& in, ConvAlgorithm conv) {
  if (const auto* c = std::get_if<Conv>(&n.op)) return ConvRoot(g, n, *c, in, conv);
  if (const auto* c = std::get_if<ConvTranspose>(&n.op)) return ConvTransposeRoot(g, n, *c, in);
  if (std::holds_alternative<MatMul>(n.op)) return MatMulRoot(g, n, in);
  if (std::holds_alternative<Dense>(n.op)) {
    const Value& x = g.values[n.inputs[0]];
    const Value& w = g.values[n.inputs[1]];
    LibraryRoot root;
    const int64_t M = x.shape[0], K = x.shape[1], N = w.shape[0];
    Tensor data = in.Add(g, n.inputs[0]);
    Tensor weight = in.Add(g, n.inputs[1]);
    auto built = te::ops::Dense({M, N, K, x.dtype}, {data, weight});
    if (!built.ok()) return std::nullopt;
    root.built = *built;
    root.op = "dense";
    root.keys = {{"M", M}, {"N", N}, {"K", K}};
    return root;
  }
  return std::nullopt;
}

// The library epilogue a chain node is, with the operand it reads (or -1).
std::optional<std::pair<std::string, ValueId>> Epilogue(const Graph& g, const Node& n,
                                                        ValueId chain, const Tensor& current,
                                                        int channel_axis) {
  auto plain = [](const char* name) { return std::make_pair(std::string(name), ValueId{-1}); };
  if (const auto* u = std::get_if<Unary>(&n.op)) {
    switch (u->kind) {
      case UnaryKind::kRelu: return plain("relu");
      case UnaryKind::kSigmoid: return plain("sigmoid");
      case UnaryKind::kTanh: return plain("tanh");
      case UnaryKind::kGelu: return plain("gelu");
      default: return std::nullopt;
    }
  }
  if (const auto* c = std::get_if<Clip>(&n.op)) {
    if (c->min == 0 && c->max == 6) return plain("relu6");
    return std::nullopt;
  }
  if (const auto* l = std::get_if<LeakyRelu>(&n.op)) {
    if (std::abs(l->alpha - 0.01) < 1e-9) return plain("leaky_relu");
    return std::nullopt;
  }
  const auto* b = std::get_if<Binary>(&n.op);
  if (!b || (b->kind != BinaryKind::kAdd && b->kind != BinaryKind::kMul)) return std::nullopt;
  ValueId other = n.inputs[0] == chain ? n.inputs[1] : n.inputs[0];
  const Value& o = g.values[other];
  const Value& out = g.values[chain];
  if (o.num_elements() == out.num_elements() && o.shape == out.shape)
    return std::make_pair(std::string(b->kind == BinaryKind::kAdd ? "add" : "mul"), other);
  // A bias: one value per channel, broadcast along every other axis.
  if (b->kind != BinaryKind::kAdd || channel_axis < 0) return std::nullopt;
  const int64_t channels = current->shape[channel_axis];
  if (o.num_elements() != channels) return std::nullopt;
  // The operand's one non-1 dimension must line up with the output's channel
  // axis (counting from the end: current may have flattened leading axes).
  const size_t from_end = current->shape.size() - 1 - channel_axis;
  if (o.shape.size() <= from_end || o.shape[o.shape.size() - 1 - from_end] != channels)
    return std::nullopt;
  return std::make_pair(std::string("bias"), other);
}

std::optional<GroupKernel> LibraryKernel(const Graph& g, const Group& group, ConvAlgorithm conv) {
  Inputs in;
  std::optional<LibraryRoot> root = Root(g, g.nodes[group.nodes[0]], in, conv);
  if (!root) return std::nullopt;
  ValueId chain = g.nodes[group.nodes[0]].output;
  for (size_t k = 1; k < group.nodes.size(); ++k) {
    const Node& n = g.nodes[group.nodes[k]];
    auto e = Epilogue(g, n, chain, root->built.output, root->built.channel_axis);
    if (!e) return std::nullopt;
    te::ops::OpInputs operand;
    if (e->second >= 0) {
      std::vector<int64_t> shape = e->first == "bias"
                                       ? std::vector<int64_t>{root->built.output->shape[root->built.channel_axis]}
                                       : root->built.output->shape;
      operand.push_back(in.Add(g, e->second, shape));
    }
    auto next = te::ops::ApplyEpilogue(e->first, root->built, operand);
    if (!next.ok()) return std::nullopt;
    root->built = *next;
    root->epilogues.push_back(e->first);
    chain = n.output;
  }
  auto dag = te::ComputeDag::Create({root->built.output});
  if (!dag.ok()) return std::nullopt;
  GroupKernel kernel;
  kernel.dag = std::make_shared<const te::ComputeDag>(*std::move(dag));
  std::string op = root->op;
  for (const std::string& e : root->epilogues) absl::StrAppend(&op, "+", e);
  kernel.name = op;
  std::vector<std::string> keys;
  for (const auto& [k, v] : root->keys) keys.push_back(absl::StrCat(k, "=", v));
  te::DType dtype = g.values[group.output].dtype;
  if (dtype != te::DType::Float32()) keys.push_back(absl::StrCat("dtype=", te::ToString(dtype)));
  // The spec names this very DAG only if the library builds the same one
  // from it; otherwise the group travels as a definition.
  auto parsed = te::ParseWorkload(absl::StrCat(op, ":", absl::StrJoin(keys, ",")));
  if (parsed.ok() && parsed->dag->canonical_text() == kernel.dag->canonical_text())
    kernel.spec = parsed->spec;
  kernel.args = in.ArgsOf(*kernel.dag, group.output);
  return kernel;
}

absl::StatusOr<GroupKernel> GenericKernel(const Graph& g, const Group& group) {
  Inputs in;
  absl::flat_hash_map<ValueId, Tensor> tensors;
  Tensor last;
  std::vector<std::string> ops;
  for (int index : group.nodes) {
    const Node& n = g.nodes[index];
    std::vector<Tensor> node_inputs;
    for (ValueId v : n.inputs) {
      auto it = tensors.find(v);
      if (it == tensors.end()) it = tensors.emplace(v, in.Add(g, v)).first;
      node_inputs.push_back(it->second);
    }
    auto t = BuildNodeTensor(g, n, node_inputs, absl::StrCat("t", index));
    if (!t.ok())
      return absl::Status(t.status().code(),
                          absl::StrCat("node '", n.name, "' (", n.source, "): ", t.status().message()));
    tensors[n.output] = *t;
    last = *t;
    ops.push_back(OpName(n.op));
  }
  auto dag = te::ComputeDag::Create({last});
  if (!dag.ok()) return dag.status();
  GroupKernel kernel;
  kernel.dag = std::make_shared<const te::ComputeDag>(*std::move(dag));
  kernel.name = absl::StrJoin(ops, "+");
  kernel.args = in.ArgsOf(*kernel.dag, group.output);
  return kernel;
}

}  // namespace

absl::StatusOr<GroupKernel> BuildGroupKernel(const Graph& graph, const Group& group, ConvAlgorithm conv) {
  if (std::optional<GroupKernel> k = LibraryKernel(graph, group, conv)) return *std::move(k);
  return GenericKernel(graph, group);
}

}  // namespace tuneforge::graph
