// Builds small ONNX models in tests (the generated models of the model
// tests and the CLI tests), without Python: inputs, initializers with
// seeded random values, nodes with attributes, outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace tuneforge::graph::testing {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int64_t opset = 13);

  OnnxBuilder& Input(const std::string& name, std::vector<int64_t> shape);
  OnnxBuilder& Output(const std::string& name, std::vector<int64_t> shape);
  // A float32 initializer with values uniform in [-scale, scale).
  OnnxBuilder& Weight(const std::string& name, std::vector<int64_t> shape, float scale = 0.5f);
  OnnxBuilder& WeightValues(const std::string& name, std::vector<int64_t> shape, std::vector<float> values);
  OnnxBuilder& Int64s(const std::string& name, std::vector<int64_t> values);

  // A node; attributes are added to the returned node with Attr*().
  OnnxBuilder& Node(const std::string& op, std::vector<std::string> inputs,
                    std::vector<std::string> outputs);
  OnnxBuilder& AttrInt(const std::string& name, int64_t v);
  OnnxBuilder& AttrInts(const std::string& name, std::vector<int64_t> v);
  OnnxBuilder& AttrFloat(const std::string& name, float v);
  OnnxBuilder& AttrString(const std::string& name, const std::string& v);

  const onnx::ModelProto& model() const { return model_; }
  std::string Bytes() const;
  // Writes the model to `path`; false on an I/O error.
  bool Save(const std::string& path) const;

 private:
  onnx::ModelProto model_;
  uint64_t seed_ = 1;
};

// Models the tests share (batch 1, float32, seeded weights).
// conv3x3+BN+relu, conv3x3+BN, residual add, relu (a ResNet basic block),
// twice, with the same shapes, on [1, C, H, W].
OnnxBuilder ResidualBlocks(int64_t C = 8, int64_t H = 10, int64_t W = 10);
// Flatten, Gemm+Relu, Gemm+Relu, Gemm, Softmax on [batch, in].
OnnxBuilder Mlp(int64_t batch = 4, int64_t in = 32, int64_t hidden = 64, int64_t out = 10);
// One self-attention block on [1, S, D]: Q/K/V MatMuls, reshape into heads,
// transposes, scaled scores, softmax, context, output projection, residual
// add and LayerNormalization, then a GELU feed-forward written out with Erf.
OnnxBuilder AttentionBlock(int64_t S = 8, int64_t D = 16, int64_t heads = 2);

}  // namespace tuneforge::graph::testing
