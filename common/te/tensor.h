// Tensors: the outputs of placeholder ops (inputs) and compute ops.
// Each op has exactly one output, so a Tensor is also its op.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/expr.h"

namespace tuneforge::te {

struct TensorNode {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  // Compute ops only: one spatial axis per output dimension, and the body
  // giving the element at those axes (a Reduce at the top for reductions).
  std::vector<IterVar> axes;
  Expr body;
  // Free-form kind of the operator ("matmul", "conv2d", "pad", ...), for
  // printing and for rules that want to recognise an op; never required.
  std::string tag;
  // Placeholders only: the value is fixed before any kernel runs (a model's
  // weight), so a schedule may precompute what depends only on it, in the
  // layout it reads best, once instead of in every call (layout rewrite).
  // Part of the workload: printed in the canonical text and definitions.
  bool constant = false;

  bool is_placeholder() const { return !static_cast<bool>(body); }
  bool is_compute() const { return static_cast<bool>(body); }
  // The top-level reduction of a compute body, or null.
  const Reduce* reduce() const { return body ? body.as<Reduce>() : nullptr; }
  int64_t num_elements() const;
};

Tensor Placeholder(std::string name, std::vector<int64_t> shape, DType dtype = DType::Float32());
// A placeholder whose value is a constant (see TensorNode::constant).
Tensor ConstantPlaceholder(std::string name, std::vector<int64_t> shape, DType dtype = DType::Float32());

// Builds a compute op. `fn` receives one index variable per output dimension
// and returns the element expression (a Reduce for reductions). Errors: an
// empty or non-positive shape, a Reduce nested below the top, a reduction
// axis with a non-positive extent.
using ComputeFn = std::function<Expr(const std::vector<Var>&)>;
absl::StatusOr<Tensor> Compute(std::string name, std::vector<int64_t> shape, const ComputeFn& fn,
                               std::string tag = "");
// Same, from axes and body already built (used by schedule transforms).
absl::StatusOr<Tensor> MakeCompute(std::string name, std::vector<IterVar> axes, Expr body,
                                   std::string tag = "");

// Reduction axis helper: a fresh variable ranging over [0, extent).
IterVar ReduceAxis(int64_t extent, std::string name);

// Element access for definitions: A(i, j).
Expr Read(const Tensor& t, std::vector<Expr> indices);

}  // namespace tuneforge::te
