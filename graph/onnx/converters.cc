#include "graph/onnx/converters.h"

#include <algorithm>

namespace tuneforge::graph::onnx_import {
namespace {

struct Entry {
  const char* op_type;
  ConvertFn fn;
};

// Op types of the default ONNX domain, opsets 1 to 17.
constexpr Entry kConverters[] = {
    {"Conv", ConvertConv},
    {"ConvTranspose", ConvertConvTranspose},
    {"MatMul", ConvertMatMul},
    {"Gemm", ConvertGemm},
    {"Relu", ConvertUnary},
    {"Sigmoid", ConvertUnary},
    {"Tanh", ConvertUnary},
    {"Erf", ConvertUnary},
    {"Sqrt", ConvertUnary},
    {"Exp", ConvertUnary},
    {"Log", ConvertUnary},
    {"Abs", ConvertUnary},
    {"Neg", ConvertUnary},
    {"Reciprocal", ConvertUnary},
    {"Floor", ConvertUnary},
    {"Ceil", ConvertUnary},
    {"HardSwish", ConvertUnary},
    {"Add", ConvertBinary},
    {"Sub", ConvertBinary},
    {"Mul", ConvertBinary},
    {"Div", ConvertBinary},
    {"Pow", ConvertBinary},
    {"Max", ConvertBinary},
    {"Min", ConvertBinary},
    {"Sum", ConvertBinary},
    {"Mean", ConvertBinary},
    {"Clip", ConvertClip},
    {"LeakyRelu", ConvertLeakyRelu},
    {"HardSigmoid", ConvertHardSigmoid},
    {"PRelu", ConvertPRelu},
    {"Elu", ConvertElu},
    {"Selu", ConvertElu},
    {"Softplus", ConvertSoftplus},
    {"Softsign", ConvertSoftsign},
    {"LogSoftmax", ConvertLogSoftmax},
    {"Cast", ConvertCast},
    {"BatchNormalization", ConvertBatchNorm},
    {"MaxPool", ConvertPool},
    {"AveragePool", ConvertPool},
    {"GlobalAveragePool", ConvertGlobalPool},
    {"GlobalMaxPool", ConvertGlobalPool},
    {"ReduceMean", ConvertReduce},
    {"ReduceSum", ConvertReduce},
    {"ReduceMax", ConvertReduce},
    {"ReduceMin", ConvertReduce},
    {"Softmax", ConvertSoftmax},
    {"LayerNormalization", ConvertLayerNorm},
    {"Reshape", ConvertReshape},
    {"Flatten", ConvertFlatten},
    {"Squeeze", ConvertSqueeze},
    {"Unsqueeze", ConvertUnsqueeze},
    {"Transpose", ConvertTranspose},
    {"Concat", ConvertConcat},
    {"Slice", ConvertSlice},
    {"Gather", ConvertGather},
    {"Pad", ConvertPad},
    {"Split", ConvertSplit},
    {"Expand", ConvertExpand},
    {"Shape", ConvertShape},
    {"Constant", ConvertConstant},
    {"Identity", ConvertIdentity},
    {"Dropout", ConvertIdentity},
};

}  // namespace

ConvertFn FindConverter(const std::string& op_type) {
  for (const Entry& e : kConverters)
    if (op_type == e.op_type) return e.fn;
  return nullptr;
}

std::vector<std::string> SupportedOps() {
  std::vector<std::string> out;
  for (const Entry& e : kConverters) out.push_back(e.op_type);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tuneforge::graph::onnx_import
