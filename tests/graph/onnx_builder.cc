#include "tests/graph/onnx_builder.h"

#include <cmath>
#include <fstream>
#include <random>

#include "absl/strings/str_cat.h"

namespace tuneforge::graph::testing {
namespace {

void SetShape(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& shape) {
  v->set_name(name);
  onnx::TypeProto::Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
}

}  // namespace

OnnxBuilder::OnnxBuilder(int64_t opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("tuneforge-tests");
  onnx::OperatorSetIdProto* o = model_.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

OnnxBuilder& OnnxBuilder::Input(const std::string& name, std::vector<int64_t> shape) {
  SetShape(model_.mutable_graph()->add_input(), name, shape);
  return *this;
}

OnnxBuilder& OnnxBuilder::Output(const std::string& name, std::vector<int64_t> shape) {
  SetShape(model_.mutable_graph()->add_output(), name, shape);
  return *this;
}

OnnxBuilder& OnnxBuilder::WeightValues(const std::string& name, std::vector<int64_t> shape,
                                       std::vector<float> values) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : shape) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
  return *this;
}

OnnxBuilder& OnnxBuilder::Weight(const std::string& name, std::vector<int64_t> shape, float scale) {
  std::mt19937_64 rng(seed_++);
  std::uniform_real_distribution<float> dist(-scale, scale);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return WeightValues(name, std::move(shape), std::move(values));
}

OnnxBuilder& OnnxBuilder::Int64s(const std::string& name, std::vector<int64_t> values) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
  return *this;
}

OnnxBuilder& OnnxBuilder::Node(const std::string& op, std::vector<std::string> inputs,
                               std::vector<std::string> outputs) {
  onnx::NodeProto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(outputs.empty() ? op : outputs[0]);
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  return *this;
}

namespace {
onnx::AttributeProto* NewAttr(onnx::ModelProto& m, const std::string& name) {
  onnx::NodeProto* n = m.mutable_graph()->mutable_node(m.graph().node_size() - 1);
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  return a;
}
}  // namespace

OnnxBuilder& OnnxBuilder::AttrInt(const std::string& name, int64_t v) {
  onnx::AttributeProto* a = NewAttr(model_, name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
  return *this;
}

OnnxBuilder& OnnxBuilder::AttrInts(const std::string& name, std::vector<int64_t> v) {
  onnx::AttributeProto* a = NewAttr(model_, name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
  return *this;
}

OnnxBuilder& OnnxBuilder::AttrFloat(const std::string& name, float v) {
  onnx::AttributeProto* a = NewAttr(model_, name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
  return *this;
}

OnnxBuilder& OnnxBuilder::AttrString(const std::string& name, const std::string& v) {
  onnx::AttributeProto* a = NewAttr(model_, name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
  return *this;
}

std::string OnnxBuilder::Bytes() const { return model_.SerializeAsString(); }

bool OnnxBuilder::Save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  out << Bytes();
  return static_cast<bool>(out);
}

namespace {

// conv3x3 (pad 1) + BatchNormalization named `p`.
void ConvBn(OnnxBuilder& b, const std::string& p, const std::string& in, const std::string& out, int64_t C) {
  b.Weight(absl::StrCat(p, ".w"), {C, C, 3, 3}, 0.2f)
      .Weight(absl::StrCat(p, ".gamma"), {C}, 0.5f)
      .Weight(absl::StrCat(p, ".beta"), {C}, 0.5f)
      .Weight(absl::StrCat(p, ".mean"), {C}, 0.5f);
  std::vector<float> var(C);
  for (int64_t c = 0; c < C; ++c) var[c] = 0.5f + 0.1f * static_cast<float>(c);
  b.WeightValues(absl::StrCat(p, ".var"), {C}, var);
  b.Node("Conv", {in, absl::StrCat(p, ".w")}, {absl::StrCat(p, ".conv")}).AttrInts("kernel_shape", {3, 3}).AttrInts("pads", {1, 1, 1, 1});
  b.Node("BatchNormalization", {absl::StrCat(p, ".conv"), absl::StrCat(p, ".gamma"), absl::StrCat(p, ".beta"), absl::StrCat(p, ".mean"), absl::StrCat(p, ".var")}, {out})
      .AttrFloat("epsilon", 1e-5f);
}

}  // namespace

OnnxBuilder ResidualBlocks(int64_t C, int64_t H, int64_t W) {
  OnnxBuilder b;
  b.Input("x", {1, C, H, W});
  std::string in = "x";
  for (int block = 0; block < 2; ++block) {
    std::string p = absl::StrCat("b", block);
    ConvBn(b, absl::StrCat(p, ".c1"), in, absl::StrCat(p, ".bn1"), C);
    b.Node("Relu", {absl::StrCat(p, ".bn1")}, {absl::StrCat(p, ".r1")});
    ConvBn(b, absl::StrCat(p, ".c2"), absl::StrCat(p, ".r1"), absl::StrCat(p, ".bn2"), C);
    b.Node("Add", {absl::StrCat(p, ".bn2"), in}, {absl::StrCat(p, ".sum")});
    b.Node("Relu", {absl::StrCat(p, ".sum")}, {absl::StrCat(p, ".out")});
    in = absl::StrCat(p, ".out");
  }
  b.Node("Identity", {in}, {"y"});
  b.Output("y", {1, C, H, W});
  return b;
}

OnnxBuilder Mlp(int64_t batch, int64_t in, int64_t hidden, int64_t out) {
  OnnxBuilder b;
  b.Input("x", {batch, in});
  b.Weight("w1", {hidden, in}, 0.2f).Weight("b1", {hidden}, 0.2f);
  b.Weight("w2", {hidden, hidden}, 0.2f).Weight("b2", {hidden}, 0.2f);
  b.Weight("w3", {out, hidden}, 0.2f).Weight("b3", {out}, 0.2f);
  b.Node("Gemm", {"x", "w1", "b1"}, {"h1"}).AttrInt("transB", 1);
  b.Node("Relu", {"h1"}, {"a1"});
  b.Node("Gemm", {"a1", "w2", "b2"}, {"h2"}).AttrInt("transB", 1);
  b.Node("Relu", {"h2"}, {"a2"});
  b.Node("Gemm", {"a2", "w3", "b3"}, {"logits"}).AttrInt("transB", 1);
  b.Node("Softmax", {"logits"}, {"y"}).AttrInt("axis", -1);
  b.Output("y", {batch, out});
  return b;
}

OnnxBuilder AttentionBlock(int64_t S, int64_t D, int64_t heads) {
  OnnxBuilder b;
  const int64_t dh = D / heads;
  b.Input("x", {1, S, D});
  for (const char* w : {"wq", "wk", "wv", "wo"}) b.Weight(w, {D, D}, 0.3f);
  b.Weight("ln.gamma", {D}, 1.0f).Weight("ln.beta", {D}, 0.2f);
  b.Weight("ff1", {D, 2 * D}, 0.3f).Weight("ff1.b", {2 * D}, 0.2f).Weight("ff2", {2 * D, D}, 0.3f);
  b.Int64s("heads_shape", {1, S, heads, dh}).Int64s("merge_shape", {1, S, D});
  b.WeightValues("scale", {}, {1.0f / std::sqrt(static_cast<float>(dh))});
  b.WeightValues("sqrt2", {}, {1.4142135f}).WeightValues("one", {}, {1.0f}).WeightValues("half", {}, {0.5f});
  for (const char* p : {"q", "k", "v"}) {
    std::string w = absl::StrCat("w", p);
    b.Node("MatMul", {"x", w}, {absl::StrCat(p, ".proj")});
    b.Node("Reshape", {absl::StrCat(p, ".proj"), "heads_shape"}, {absl::StrCat(p, ".heads")});
  }
  b.Node("Transpose", {"q.heads"}, {"q.t"}).AttrInts("perm", {0, 2, 1, 3});
  b.Node("Transpose", {"k.heads"}, {"k.t"}).AttrInts("perm", {0, 2, 3, 1});
  b.Node("Transpose", {"v.heads"}, {"v.t"}).AttrInts("perm", {0, 2, 1, 3});
  b.Node("MatMul", {"q.t", "k.t"}, {"scores"});
  b.Node("Mul", {"scores", "scale"}, {"scaled"});
  b.Node("Softmax", {"scaled"}, {"probs"}).AttrInt("axis", -1);
  b.Node("MatMul", {"probs", "v.t"}, {"ctx"});
  b.Node("Transpose", {"ctx"}, {"ctx.t"}).AttrInts("perm", {0, 2, 1, 3});
  b.Node("Reshape", {"ctx.t", "merge_shape"}, {"ctx.merged"});
  b.Node("MatMul", {"ctx.merged", "wo"}, {"attn"});
  b.Node("Add", {"attn", "x"}, {"res"});
  b.Node("LayerNormalization", {"res", "ln.gamma", "ln.beta"}, {"ln"}).AttrInt("axis", -1).AttrFloat("epsilon", 1e-5f);
  // GELU as exported by PyTorch: x * 0.5 * (1 + erf(x / sqrt(2))).
  b.Node("MatMul", {"ln", "ff1"}, {"ff1.out"});
  b.Node("Add", {"ff1.out", "ff1.b"}, {"ff1.biased"});
  b.Node("Div", {"ff1.biased", "sqrt2"}, {"g.div"});
  b.Node("Erf", {"g.div"}, {"g.erf"});
  b.Node("Add", {"g.erf", "one"}, {"g.plus"});
  b.Node("Mul", {"ff1.biased", "g.plus"}, {"g.mul"});
  b.Node("Mul", {"g.mul", "half"}, {"gelu"});
  b.Node("MatMul", {"gelu", "ff2"}, {"ff2.out"});
  b.Node("Add", {"ff2.out", "ln"}, {"res2"});
  // The second layer norm as PyTorch exports nn.LayerNorm at opset 13.
  b.Weight("ln2.gamma", {D}, 1.0f).Weight("ln2.beta", {D}, 0.2f);
  b.WeightValues("two", {}, {2.0f}).WeightValues("eps", {}, {1e-5f});
  b.Node("ReduceMean", {"res2"}, {"ln2.mean"}).AttrInts("axes", {-1});
  b.Node("Sub", {"res2", "ln2.mean"}, {"ln2.centered"});
  b.Node("Pow", {"ln2.centered", "two"}, {"ln2.sq"});
  b.Node("ReduceMean", {"ln2.sq"}, {"ln2.var"}).AttrInts("axes", {-1});
  b.Node("Add", {"ln2.var", "eps"}, {"ln2.var_eps"});
  b.Node("Sqrt", {"ln2.var_eps"}, {"ln2.std"});
  b.Node("Div", {"ln2.centered", "ln2.std"}, {"ln2.normed"});
  b.Node("Mul", {"ln2.normed", "ln2.gamma"}, {"ln2.scaled"});
  b.Node("Add", {"ln2.scaled", "ln2.beta"}, {"y"});
  b.Output("y", {1, S, D});
  return b;
}

}  // namespace tuneforge::graph::testing
