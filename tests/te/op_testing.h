// Helpers shared by the operator-library, workload and definition tests:
// build workloads that must succeed, run DAGs on the reference interpreter
// with random inputs, and index results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/te/interpreter.h"
#include "common/te/ndarray.h"
#include "common/te/workload.h"
#include "gtest/gtest.h"

namespace tuneforge::te::optest {

// Small instances of every op of the table, several per op where parameters
// change the index math (the ops-table and printer tests walk them).
inline const std::vector<std::string>& OpSamples() {
  static const std::vector<std::string> samples = {
    "matmul:M=3,N=4,K=5",
    "batch_matmul:B=2,M=3,N=4,K=5",
    "dense:M=3,N=4,K=5",
    "conv1d:N=1,C=4,W=9,K=2,S=3,stride=2,pad=2,dilation=2,groups=2",
    "conv2d:N=1,C=3,H=6,W=5,K=2,R=3,S=2,pad=1",
    "conv2d:N=1,C=4,H=9,W=9,K=6,R=3,S=3,stride=3,pad=2,dilation=2,groups=2",
    "conv3d:N=1,C=2,D=4,H=4,W=4,K=2,T=2,R=3,S=3,stride=2,pad=1",
    "depthwise_conv2d:N=1,C=3,H=7,W=7,R=3,S=3,stride=2,pad=1,dilation=2,M=2",
    "conv2d_transpose:N=1,C=2,H=3,W=3,K=2,R=3,S=3,stride=2,pad=1,output_padding=1",
    "conv2d_transpose:N=1,C=1,H=4,W=4,K=1,R=2,S=2,stride=2,pad=2",
    "conv2d_winograd:N=1,C=2,H=6,W=5,K=3,tile=2",
    "capsule_conv2d:N=1,H=5,W=5,C=2,K=2,R=3,S=3,stride=2,pad=1,capsule=2",
    "max_pool2d:N=1,C=2,H=5,W=5,R=3,S=3,stride=2,pad=1",
    "avg_pool2d:N=1,C=2,H=5,W=5,R=2,S=2,stride=2",
    "softmax:M=3,N=5",
    "norm:M=3,N=5",
    "layer_norm:M=3,N=5",
    "relu:N=1,C=3,H=2,W=2",
    "add:M=3,N=4",
  };
  return samples;
}

inline Workload MustParse(const std::string& spec) {
  absl::StatusOr<Workload> w = ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << spec << ": " << w.status();
  return w.ok() ? *std::move(w) : Workload{};
}

inline Workload MustDefine(const std::string& text) {
  absl::StatusOr<Workload> w = ParseDefinition(text, "test");
  EXPECT_TRUE(w.ok()) << w.status() << "\n" << text;
  return w.ok() ? *std::move(w) : Workload{};
}

inline ComputeDag MustDag(const std::vector<Tensor>& outputs) {
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create(outputs);
  EXPECT_TRUE(dag.ok()) << dag.status();
  return *std::move(dag);
}

// One random array per placeholder, in InputOps() order.
inline std::vector<NDArray> RandomInputs(const ComputeDag& dag, uint64_t seed = 1) {
  std::vector<NDArray> inputs;
  for (int i : dag.InputOps()) {
    absl::StatusOr<NDArray> a = NDArray::Empty(dag.op(i)->dtype, dag.op(i)->shape);
    EXPECT_TRUE(a.ok()) << a.status();
    a->FillRandom(seed + static_cast<uint64_t>(i));
    inputs.push_back(*std::move(a));
  }
  return inputs;
}

inline std::vector<NDArray> Run(const ComputeDag& dag, const std::vector<NDArray>& inputs) {
  absl::StatusOr<std::vector<NDArray>> out = Interpret(dag, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<NDArray>{};
}

inline double At(const NDArray& a, const std::vector<int64_t>& index) {
  return a.GetDouble(a.FlatIndex(index));
}

// The op of `dag` called `name`, or null.
inline Tensor FindOp(const ComputeDag& dag, const std::string& name) {
  for (const Tensor& t : dag.ops())
    if (t->name == name) return t;
  return nullptr;
}

// Names of the DAG's ops in order.
inline std::vector<std::string> OpNames(const ComputeDag& dag) {
  std::vector<std::string> names;
  for (const Tensor& t : dag.ops()) names.push_back(t->name);
  return names;
}

// Index of the input called `name` among InputOps() (the Interpret order).
inline size_t InputSlot(const ComputeDag& dag, const std::string& name) {
  std::vector<int> inputs = dag.InputOps();
  for (size_t s = 0; s < inputs.size(); ++s)
    if (dag.op(inputs[s])->name == name) return s;
  ADD_FAILURE() << "no input named " << name;
  return 0;
}

}  // namespace tuneforge::te::optest
