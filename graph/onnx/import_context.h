// What an ONNX op converter works with: the graph built so far, the values
// by ONNX name, the model's opset, and typed access to the node's inputs and
// attributes with errors that name the node. Converters (convert_*.cc) add
// nodes through AddNode, which folds a node whose inputs are all constant
// right away, so shape arithmetic (Shape, Gather, Concat, ...) is constant by
// the time a Reshape needs its target shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/ir/graph.h"
#include "onnx/onnx_pb.h"

namespace tuneforge::graph::onnx_import {

class ImportContext {
 public:
  ImportContext(Graph* graph, int64_t opset) : graph_(graph), opset_(opset) {}

  Graph& graph() { return *graph_; }
  int64_t opset() const { return opset_; }
  // Binds an ONNX value name to a graph value.
  void Bind(const std::string& onnx_name, ValueId id) { by_name_[onnx_name] = id; }
  // The value of an ONNX name, or an error naming the node that reads it.
  absl::StatusOr<ValueId> Lookup(const std::string& onnx_name) const;

  // --- the node being converted ---
  void Begin(const onnx::NodeProto* node) { node_ = node; }
  const onnx::NodeProto& node() const { return *node_; }
  std::string NodeLabel() const;  // "node 'conv1' (Conv)"
  // An error for the current node: "node 'conv1' (Conv): <message>".
  absl::Status Error(absl::StatusCode code, absl::string_view message) const;
  absl::Status Invalid(absl::string_view message) const {
    return Error(absl::StatusCode::kInvalidArgument, message);
  }
  absl::Status Unsupported(absl::string_view message) const {
    return Error(absl::StatusCode::kUnimplemented, message);
  }

  int num_inputs() const;  // counting only non-empty names
  bool HasInput(int i) const;
  // Input i (required): an error when it is absent.
  absl::StatusOr<ValueId> Input(int i) const;
  const Value& value(ValueId id) const { return graph_->values[id]; }
  // Input i as constant integers (a shape, axes, pads), or an error saying it
  // must be constant.
  absl::StatusOr<std::vector<int64_t>> ConstInts(int i) const;
  absl::StatusOr<double> ConstScalar(int i) const;
  // Integers that later opsets pass as constant input `i` and earlier ones
  // as attribute `attr` (axes, pads, ...): whichever the node has.
  absl::StatusOr<std::vector<int64_t>> IntsFromInputOrAttr(int i, const std::string& attr,
                                                           std::vector<int64_t> fallback) const;

  bool HasAttr(const std::string& name) const;
  absl::StatusOr<int64_t> Int(const std::string& name, int64_t fallback) const;
  absl::StatusOr<double> Float(const std::string& name, double fallback) const;
  absl::StatusOr<std::vector<int64_t>> Ints(const std::string& name,
                                            std::vector<int64_t> fallback) const;
  absl::StatusOr<std::string> String(const std::string& name, std::string fallback) const;
  const onnx::AttributeProto* Attr(const std::string& name) const;

  // Adds a node writing a new value of (dtype, shape) and binds it to the
  // node's output `output_index`. Folds it when every input is constant.
  absl::StatusOr<ValueId> AddNode(Op op, std::vector<ValueId> inputs, te::DType dtype,
                                  std::vector<int64_t> shape, int output_index = 0);
  // Adds an intermediate node (not bound to an ONNX name): Gemm's transpose,
  // alpha and beta.
  absl::StatusOr<ValueId> AddInternal(Op op, std::vector<ValueId> inputs, te::DType dtype,
                                      std::vector<int64_t> shape, const std::string& suffix);
  // Binds output `output_index` to an existing value (Identity, Dropout).
  absl::Status Alias(ValueId id, int output_index = 0);
  // A new constant value (Constant, folded shapes).
  ValueId AddConstant(te::NDArray array, const std::string& name, bool scalar = false);

 private:
  absl::StatusOr<ValueId> Add(Op op, std::vector<ValueId> inputs, te::DType dtype,
                              std::vector<int64_t> shape, std::string name, std::string value_name);
  Graph* graph_;
  int64_t opset_;
  absl::flat_hash_map<std::string, ValueId> by_name_;
  const onnx::NodeProto* node_ = nullptr;
  int internal_count_ = 0;
};

// Normalises an axis attribute against `rank` (negative counts from the end).
absl::StatusOr<int64_t> NormalizeAxis(const ImportContext& ctx, int64_t axis, int64_t rank);
// numpy broadcasting of two shapes, or an error naming both.
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const ImportContext& ctx,
                                                     const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b);

}  // namespace tuneforge::graph::onnx_import
