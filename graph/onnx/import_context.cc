#include "graph/onnx/import_context.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/lower/evaluate_node.h"

namespace tuneforge::graph::onnx_import {
namespace {

// Folding runs the interpreter; past this many output elements a constant
// subgraph is left for the executor (it is a weight transform, not shape
// arithmetic, and the interpreter is slow).
constexpr int64_t kMaxFoldedElements = int64_t{1} << 22;

}  // namespace

absl::StatusOr<ValueId> ImportContext::Lookup(const std::string& onnx_name) const {
  auto it = by_name_.find(onnx_name);
  if (it != by_name_.end()) return it->second;
  return Invalid(absl::StrCat("reads '", onnx_name,
                              "', which is no graph input, initializer or earlier node's output "
                              "(a missing initializer, or nodes out of topological order)"));
}

std::string ImportContext::NodeLabel() const {
  std::string name = node_->name();
  if (name.empty() && node_->output_size() > 0) name = node_->output(0);
  return absl::StrCat("node '", name, "' (", node_->op_type(), ")");
}

absl::Status ImportContext::Error(absl::StatusCode code, absl::string_view message) const {
  return absl::Status(code, absl::StrCat(NodeLabel(), ": ", message));
}

int ImportContext::num_inputs() const {
  int n = 0;
  for (const std::string& in : node_->input())
    if (!in.empty()) ++n;
  return n;
}

bool ImportContext::HasInput(int i) const {
  return i < node_->input_size() && !node_->input(i).empty();
}

absl::StatusOr<ValueId> ImportContext::Input(int i) const {
  if (!HasInput(i)) return Invalid(absl::StrCat("input ", i, " is required but missing"));
  return Lookup(node_->input(i));
}

absl::StatusOr<std::vector<int64_t>> ImportContext::ConstInts(int i) const {
  auto id = Input(i);
  if (!id.ok()) return id.status();
  const Value& v = value(*id);
  if (!v.is_constant())
    return Unsupported(absl::StrCat("input ", i, " ('", v.name,
                                    "') must be a constant known at import (dynamic shapes are "
                                    "not supported); export the model with static shapes"));
  std::vector<int64_t> out;
  for (int64_t k = 0; k < v.constant->num_elements(); ++k) out.push_back(v.constant->GetInt(k));
  return out;
}

absl::StatusOr<double> ImportContext::ConstScalar(int i) const {
  auto id = Input(i);
  if (!id.ok()) return id.status();
  const Value& v = value(*id);
  if (!v.is_constant() || v.constant->num_elements() != 1)
    return Unsupported(absl::StrCat("input ", i, " ('", v.name, "') must be a constant scalar"));
  return v.constant->GetDouble(0);
}

absl::StatusOr<std::vector<int64_t>> ImportContext::IntsFromInputOrAttr(int i, const std::string& attr,
                                                                        std::vector<int64_t> fallback) const {
  if (HasInput(i)) return ConstInts(i);
  return Ints(attr, std::move(fallback));
}

const onnx::AttributeProto* ImportContext::Attr(const std::string& name) const {
  for (const onnx::AttributeProto& a : node_->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool ImportContext::HasAttr(const std::string& name) const { return Attr(name) != nullptr; }

absl::StatusOr<int64_t> ImportContext::Int(const std::string& name, int64_t fallback) const {
  const onnx::AttributeProto* a = Attr(name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::INT)
    return Invalid(absl::StrCat("attribute '", name, "' must be an integer"));
  return a->i();
}

absl::StatusOr<double> ImportContext::Float(const std::string& name, double fallback) const {
  const onnx::AttributeProto* a = Attr(name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::FLOAT)
    return Invalid(absl::StrCat("attribute '", name, "' must be a float"));
  return a->f();
}

absl::StatusOr<std::vector<int64_t>> ImportContext::Ints(const std::string& name,
                                                         std::vector<int64_t> fallback) const {
  const onnx::AttributeProto* a = Attr(name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::INTS)
    return Invalid(absl::StrCat("attribute '", name, "' must be a list of integers"));
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

absl::StatusOr<std::string> ImportContext::String(const std::string& name,
                                                  std::string fallback) const {
  const onnx::AttributeProto* a = Attr(name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::STRING)
    return Invalid(absl::StrCat("attribute '", name, "' must be a string"));
  return a->s();
}

absl::StatusOr<ValueId> ImportContext::Add(Op op, std::vector<ValueId> inputs, te::DType dtype,
                                           std::vector<int64_t> shape, std::string name,
                                           std::string value_name) {
  const bool scalar = shape.empty();
  if (scalar) shape = {1};  // scalars are [1] throughout the graph
  for (int64_t d : shape)
    if (d <= 0)
      return Unsupported(absl::StrCat("its output would have shape [", absl::StrJoin(shape, ", "),
                                      "]; empty tensors are not supported"));
  Node node{std::move(name), node_->op_type(), std::move(op), std::move(inputs), -1};
  bool all_constant = !node.inputs.empty();
  for (ValueId in : node.inputs) all_constant = all_constant && value(in).is_constant();
  Value out{std::move(value_name), dtype, std::move(shape), nullptr, scalar};
  if (all_constant && out.num_elements() <= kMaxFoldedElements) {
    node.output = static_cast<ValueId>(graph_->values.size());
    graph_->values.push_back(out);
    auto folded = EvaluateNode(*graph_, node);
    graph_->values.pop_back();
    if (!folded.ok())
      return Invalid(absl::StrCat("folding its constant inputs failed: ", folded.status().message()));
    out.constant = std::make_shared<const te::NDArray>(*std::move(folded));
    return graph_->AddValue(std::move(out));
  }
  node.output = graph_->AddValue(std::move(out));
  graph_->nodes.push_back(std::move(node));
  return graph_->nodes.back().output;
}

absl::StatusOr<ValueId> ImportContext::AddNode(Op op, std::vector<ValueId> inputs, te::DType dtype,
                                               std::vector<int64_t> shape, int output_index) {
  if (output_index >= node_->output_size() || node_->output(output_index).empty())
    return Invalid(absl::StrCat("has no output ", output_index));
  const std::string& out_name = node_->output(output_index);
  std::string name = node_->name().empty() ? out_name : node_->name();
  auto id = Add(std::move(op), std::move(inputs), dtype, std::move(shape), name, out_name);
  if (id.ok()) Bind(out_name, *id);
  return id;
}

absl::StatusOr<ValueId> ImportContext::AddInternal(Op op, std::vector<ValueId> inputs,
                                                   te::DType dtype, std::vector<int64_t> shape,
                                                   const std::string& suffix) {
  std::string base = node_->name().empty() ? node_->output(0) : node_->name();
  std::string name = absl::StrCat(base, "/", suffix, internal_count_++);
  return Add(std::move(op), std::move(inputs), dtype, std::move(shape), name, name);
}

absl::Status ImportContext::Alias(ValueId id, int output_index) {
  if (output_index >= node_->output_size()) return Invalid("has no output to alias");
  Bind(node_->output(output_index), id);
  return absl::OkStatus();
}

ValueId ImportContext::AddConstant(te::NDArray array, const std::string& name, bool scalar) {
  Value v{name, array.dtype(), array.shape(), nullptr, scalar};
  v.constant = std::make_shared<const te::NDArray>(std::move(array));
  return graph_->AddValue(std::move(v));
}

absl::StatusOr<int64_t> NormalizeAxis(const ImportContext& ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return ctx.Invalid(absl::StrCat("axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const ImportContext& ctx,
                                                     const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t x = d < rank - a.size() ? 1 : a[d - (rank - a.size())];
    int64_t y = d < rank - b.size() ? 1 : b[d - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return ctx.Invalid(absl::StrCat("shapes [", absl::StrJoin(a, ", "), "] and [",
                                      absl::StrJoin(b, ", "), "] do not broadcast"));
    out[d] = std::max(x, y);
  }
  return out;
}

}  // namespace tuneforge::graph::onnx_import
