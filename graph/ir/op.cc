#include "graph/ir/op.h"

#include "common/overloaded.h"

namespace tuneforge::graph {
namespace {

const char* UnaryName(UnaryKind k) {
  switch (k) {
    case UnaryKind::kRelu: return "relu";
    case UnaryKind::kSigmoid: return "sigmoid";
    case UnaryKind::kTanh: return "tanh";
    case UnaryKind::kErf: return "erf";
    case UnaryKind::kSqrt: return "sqrt";
    case UnaryKind::kExp: return "exp";
    case UnaryKind::kLog: return "log";
    case UnaryKind::kAbs: return "abs";
    case UnaryKind::kNeg: return "neg";
    case UnaryKind::kReciprocal: return "reciprocal";
    case UnaryKind::kFloor: return "floor";
    case UnaryKind::kCeil: return "ceil";
    case UnaryKind::kHardSwish: return "hard_swish";
    case UnaryKind::kGelu: return "gelu";
  }
  return "unary";
}

const char* BinaryName(BinaryKind k) {
  switch (k) {
    case BinaryKind::kAdd: return "add";
    case BinaryKind::kSub: return "sub";
    case BinaryKind::kMul: return "mul";
    case BinaryKind::kDiv: return "div";
    case BinaryKind::kPow: return "pow";
    case BinaryKind::kMax: return "max";
    case BinaryKind::kMin: return "min";
  }
  return "binary";
}

const char* ReduceName(ReduceKind k) {
  switch (k) {
    case ReduceKind::kMean: return "reduce_mean";
    case ReduceKind::kSum: return "reduce_sum";
    case ReduceKind::kMax: return "reduce_max";
    case ReduceKind::kMin: return "reduce_min";
  }
  return "reduce";
}

}  // namespace

std::string OpName(const Op& op) {
  return std::visit(
      Overloaded{
          [](const Conv&) -> std::string { return "conv"; },
          [](const ConvTranspose&) -> std::string { return "conv_transpose"; },
          [](const MatMul&) -> std::string { return "matmul"; },
          [](const Dense&) -> std::string { return "dense"; },
          [](const Unary& u) -> std::string { return UnaryName(u.kind); },
          [](const Clip&) -> std::string { return "clip"; },
          [](const LeakyRelu&) -> std::string { return "leaky_relu"; },
          [](const HardSigmoid&) -> std::string { return "hard_sigmoid"; },
          [](const Binary& b) -> std::string { return BinaryName(b.kind); },
          [](const BatchNorm&) -> std::string { return "batch_norm"; },
          [](const Pool& p) -> std::string {
            return p.kind == PoolKind::kMax ? "max_pool" : "avg_pool";
          },
          [](const Reduce& r) -> std::string { return ReduceName(r.kind); },
          [](const Softmax&) -> std::string { return "softmax"; },
          [](const LayerNorm&) -> std::string { return "layer_norm"; },
          [](const Reshape&) -> std::string { return "reshape"; },
          [](const Transpose&) -> std::string { return "transpose"; },
          [](const Concat&) -> std::string { return "concat"; },
          [](const Slice&) -> std::string { return "slice"; },
          [](const Pad&) -> std::string { return "pad"; },
          [](const Gather&) -> std::string { return "gather"; },
          [](const Cast&) -> std::string { return "cast"; },
      },
      op);
}

bool IsReshape(const Op& op) { return std::holds_alternative<Reshape>(op); }

bool IsElementwise(const Op& op) {
  return std::holds_alternative<Unary>(op) || std::holds_alternative<Clip>(op) ||
         std::holds_alternative<LeakyRelu>(op) || std::holds_alternative<HardSigmoid>(op) ||
         std::holds_alternative<Binary>(op) || std::holds_alternative<Cast>(op) ||
         std::holds_alternative<BatchNorm>(op);
}

bool IsAnchor(const Op& op) {
  return std::holds_alternative<Conv>(op) || std::holds_alternative<ConvTranspose>(op) ||
         std::holds_alternative<MatMul>(op) || std::holds_alternative<Dense>(op);
}

}  // namespace tuneforge::graph
