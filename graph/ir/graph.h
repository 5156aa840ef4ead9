// The graph IR: values (typed tensors, some constant) and nodes (one op,
// its input values, one output value) in topological order. It is what ONNX
// import produces and what the passes (graph/passes/pipeline.cc), the
// partition into tasks and the executor read. Shapes are static.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/te/dtype.h"
#include "common/te/ndarray.h"
#include "graph/ir/op.h"

namespace tuneforge::graph {

using ValueId = int;

struct Value {
  std::string name;
  te::DType dtype;
  std::vector<int64_t> shape;
  // Set for initializers and folded values; shared so that passes copy
  // graphs cheaply.
  std::shared_ptr<const te::NDArray> constant;
  // An ONNX scalar (rank 0): stored and computed as shape [1], but Gather
  // with a scalar index drops its axis and outputs keep rank 0.
  bool scalar = false;

  bool is_constant() const { return constant != nullptr; }
  int64_t num_elements() const;
};

struct Node {
  std::string name;     // the ONNX node's name (or its output's), for messages
  std::string source;   // the ONNX op type it came from ("Conv", "Gemm", ...)
  Op op;
  std::vector<ValueId> inputs;
  ValueId output = -1;
};

struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;       // topological order
  std::vector<ValueId> inputs;   // the model's run-time inputs
  std::vector<ValueId> outputs;  // the model's outputs

  ValueId AddValue(Value v);
  // The node that writes `v`, or -1 (an input or a constant).
  int Producer(ValueId v) const;
  // Indices of the nodes that read `v`.
  std::vector<int> Consumers(ValueId v) const;
  bool IsOutput(ValueId v) const;
  // One line per node: "conv1: conv(data, w) -> y float32[1, 8, 5, 5]".
  std::string ToString() const;
};

// "float32[1, 8, 5, 5]".
std::string TypeString(const Value& v);

}  // namespace tuneforge::graph
