// The operators of the graph IR: one closed set (a std::variant), so every
// pass and the TE lowering get a compile error when an op is added and they
// forget it. Attributes are resolved at import: a node's shapes are static,
// pads are explicit per side, negative axes are already normalised.
//
// Inputs per op (the node's `inputs`, in order):
//   Conv            data [N,C,spatial...], weight [K,C/group,kernel...], optional bias [K]
//   ConvTranspose   data [N,C,H,W], weight [C,K/group,R,S], optional bias [K]
//   MatMul          A, B with numpy matmul semantics (batch dims broadcast)
//   Dense           data [M,K], weight [N,K] (Gemm with a transposed B)
//   Unary, Clip, LeakyRelu, HardSigmoid: x
//   Binary          a, b with numpy broadcasting
//   BatchNorm       x, scale, bias, mean, var (inference)
//   Pool            x [N,C,spatial...]
//   Reduce          x
//   Softmax         x
//   LayerNorm       x, scale, optional bias
//   Reshape         x (the target shape is the output value's shape)
//   Transpose, Slice, Pad: x
//   Concat          x0, x1, ...
//   Gather          data, indices (a constant)
//   Cast            x
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "common/te/dtype.h"

namespace tuneforge::graph {

struct Conv {
  std::vector<int64_t> strides, dilations, pads_begin, pads_end;  // one per spatial dim
  int64_t group = 1;
};
struct ConvTranspose {
  std::vector<int64_t> strides, dilations, pads_begin, pads_end, output_padding;
  int64_t group = 1;
};
struct MatMul {};
struct Dense {};

enum class UnaryKind {
  kRelu, kSigmoid, kTanh, kErf, kSqrt, kExp, kLog, kAbs, kNeg, kReciprocal, kFloor, kCeil,
  kHardSwish, kGelu
};
struct Unary {
  UnaryKind kind;
};
struct Clip {
  double min, max;  // +-infinity when absent
};
struct LeakyRelu {
  double alpha = 0.01;
};
struct HardSigmoid {
  double alpha = 0.2, beta = 0.5;
};

enum class BinaryKind { kAdd, kSub, kMul, kDiv, kPow, kMax, kMin };
struct Binary {
  BinaryKind kind;
};

struct BatchNorm {
  double epsilon = 1e-5;
};

enum class PoolKind { kMax, kAverage };
struct Pool {
  PoolKind kind;
  std::vector<int64_t> kernel, strides, pads_begin, pads_end;  // one per spatial dim
  bool count_include_pad = false;                              // average only
  std::vector<int64_t> dilations;  // one per spatial dim (max only); empty: all 1
};

enum class ReduceKind { kMean, kSum, kMax, kMin };
struct Reduce {
  ReduceKind kind;
  std::vector<int64_t> axes;  // sorted, non-negative
  bool keepdims = true;
};

struct Softmax {
  std::vector<int64_t> axes;  // sorted: one axis (opset 13+), or axis..rank-1 before
};
struct LayerNorm {
  int64_t axis;  // normalised over axis..rank-1
  double epsilon = 1e-5;
};

struct Reshape {};
struct Transpose {
  std::vector<int64_t> perm;
};
struct Concat {
  int64_t axis;
};
struct Slice {
  std::vector<int64_t> starts, steps;  // one per input dim; the output shape gives the counts
};
// Constant padding; a negative amount crops that side.
struct Pad {
  std::vector<int64_t> pads_begin, pads_end;  // one per input dim
  double value = 0;
};
struct Gather {
  int64_t axis;
};
struct Cast {
  te::DType to;
};

using Op = std::variant<Conv, ConvTranspose, MatMul, Dense, Unary, Clip, LeakyRelu, HardSigmoid,
                        Binary, BatchNorm, Pool, Reduce, Softmax, LayerNorm, Reshape, Transpose,
                        Concat, Slice, Pad, Gather, Cast>;

// "conv", "matmul", "relu", "add", ...: for messages and task names.
std::string OpName(const Op& op);
// Ops that only relabel their input's elements (no arithmetic): the executor
// runs Reshape as an alias of its input's memory.
bool IsReshape(const Op& op);
// Ops that compute each output element from the same index of each input
// (after broadcasting): what fusion attaches after an anchor.
bool IsElementwise(const Op& op);
// Ops worth tuning on their own: convolutions and matrix products.
bool IsAnchor(const Op& op);

}  // namespace tuneforge::graph
