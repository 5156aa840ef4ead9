#include "common/te/ops/op_table.h"

#include "common/te/ops/capsule_conv.h"
#include "common/te/ops/conv.h"
#include "common/te/ops/conv_transpose.h"
#include "common/te/ops/depthwise_conv.h"
#include "common/te/ops/elementwise.h"
#include "common/te/ops/matmul.h"
#include "common/te/ops/norm.h"
#include "common/te/ops/pool.h"
#include "common/te/ops/softmax.h"
#include "common/te/ops/winograd_conv.h"

namespace tuneforge::te::ops {
namespace {

ParamInfo Required(std::string key, std::string meaning) {
  return {std::move(key), std::nullopt, true, std::move(meaning)};
}
ParamInfo Optional(std::string key, int64_t value, std::string meaning) {
  return {std::move(key), value, false, std::move(meaning)};
}
ParamInfo Dimension(std::string key, std::string meaning) {
  return {std::move(key), std::nullopt, false, std::move(meaning)};
}

// Keys shared by the sliding-window ops, appended after their shape keys.
std::vector<ParamInfo> With(std::vector<ParamInfo> keys, const std::vector<ParamInfo>& more) {
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}
const std::vector<ParamInfo>& ConvKeys() {
  static const auto* keys = new std::vector<ParamInfo>{
      Optional("stride", 1, "step of the window in every spatial dimension"),
      Optional("pad", 0, "zero padding on each side of every spatial dimension"),
      Optional("dilation", 1, "spacing between kernel taps"),
      Optional("groups", 1, "channel groups; must divide C and K (groups=C=K is depthwise)"),
  };
  return *keys;
}
const std::vector<ParamInfo>& WindowKeys() {
  static const auto* keys = new std::vector<ParamInfo>{
      Optional("stride", 1, "step of the window in every spatial dimension"),
      Optional("pad", 0, "padding on each side of every spatial dimension"),
  };
  return *keys;
}

absl::StatusOr<BuiltOp> BuildElementwise(const OpArgs& a,
                                         absl::StatusOr<BuiltOp> (*op)(const ElementwiseParams&)) {
  ElementwiseParams p{{}, a.dtype()};
  for (const std::string& key : ElementwiseDimOrder())
    if (a.has(key)) p.dims.push_back({key, a.get(key)});
  return op(p);
}

std::vector<OpDef> MakeTable() {
  std::vector<ParamInfo> dims;
  for (const std::string& key : ElementwiseDimOrder())
    dims.push_back(Dimension(key, "extent of this dimension (order B,M,N,K,C,D,H,W)"));
  auto pool_keys = With({Required("N", "batch"), Required("C", "channels"),
                         Required("H", "input height"), Required("W", "input width"),
                         Required("R", "window height"), Required("S", "window width")},
                        WindowKeys());
  return {
      {{"matmul", "C[M,N] = A[M,K] * B[K,N]",
        {Required("M", "rows of A and C"), Required("N", "columns of B and C"),
         Required("K", "reduction length")}},
       [](const OpArgs& a) { return Matmul({a.get("M"), a.get("N"), a.get("K"), a.dtype()}); }},
      {{"batch_matmul", "C[B,M,N] = A[B,M,K] * B[B,K,N]",
        {Required("B", "batch of matrices"), Required("M", "rows"), Required("N", "columns"),
         Required("K", "reduction length")}},
       [](const OpArgs& a) {
         return BatchMatmul({a.get("B"), a.get("M"), a.get("N"), a.get("K"), a.dtype()});
       }},
      {{"dense", "dense[M,N] = data[M,K] * weight[N,K]^T",
        {Required("M", "batch rows"), Required("N", "output features"),
         Required("K", "input features")}},
       [](const OpArgs& a) { return Dense({a.get("M"), a.get("N"), a.get("K"), a.dtype()}); }},
      {{"conv1d", "1-d convolution, data NCW, kernel OIW",
        With({Required("N", "batch"), Required("C", "input channels"),
              Required("W", "input width"), Required("K", "output channels"),
              Required("S", "kernel width")},
             ConvKeys())},
       [](const OpArgs& a) {
         return Conv1d({a.get("N"), a.get("C"), a.get("W"), a.get("K"), a.get("S"),
                        a.get("stride"), a.get("pad"), a.get("dilation"), a.get("groups"),
                        a.dtype()});
       }},
      {{"conv2d", "2-d convolution, data NCHW, kernel OIHW",
        With({Required("N", "batch"), Required("C", "input channels"),
              Required("H", "input height"), Required("W", "input width"),
              Required("K", "output channels"), Required("R", "kernel height"),
              Required("S", "kernel width")},
             ConvKeys())},
       [](const OpArgs& a) {
         return Conv2d({a.get("N"), a.get("C"), a.get("H"), a.get("W"), a.get("K"), a.get("R"),
                        a.get("S"), a.get("stride"), a.get("pad"), a.get("dilation"),
                        a.get("groups"), a.dtype()});
       }},
      {{"conv3d", "3-d convolution, data NCDHW, kernel OIDHW",
        With({Required("N", "batch"), Required("C", "input channels"),
              Required("D", "input depth"), Required("H", "input height"),
              Required("W", "input width"), Required("K", "output channels"),
              Required("T", "kernel depth"), Required("R", "kernel height"),
              Required("S", "kernel width")},
             ConvKeys())},
       [](const OpArgs& a) {
         return Conv3d({a.get("N"), a.get("C"), a.get("D"), a.get("H"), a.get("W"), a.get("K"),
                        a.get("T"), a.get("R"), a.get("S"), a.get("stride"), a.get("pad"),
                        a.get("dilation"), a.get("groups"), a.dtype()});
       }},
      {{"conv2d_winograd", "conv2d with a 3x3 kernel, stride 1, by Winograd F(m x m, 3 x 3), data NCHW, kernel OIHW",
        {Required("N", "batch"), Required("C", "input channels"), Required("H", "input height"),
         Required("W", "input width"), Required("K", "output channels"),
         Optional("pad", 1, "zero padding on each side of every spatial dimension"),
         Optional("tile", 0, "output tile m: 2 or 4 (0: 4 where 4 divides the output height, else 2)")}},
       [](const OpArgs& a) {
         return WinogradConv2d({a.get("N"), a.get("C"), a.get("H"), a.get("W"), a.get("K"), a.get("pad"),
                                a.get("tile"), a.dtype()});
       }},
      {{"depthwise_conv2d", "depthwise 2-d convolution, data NCHW, kernel [C,M,R,S]",
        {Required("N", "batch"), Required("C", "channels"), Required("H", "input height"),
         Required("W", "input width"), Required("R", "kernel height"),
         Required("S", "kernel width"), ConvKeys()[0], ConvKeys()[1], ConvKeys()[2],
         Optional("M", 1, "channel multiplier: C*M output channels")}},
       [](const OpArgs& a) {
         return DepthwiseConv2d({a.get("N"), a.get("C"), a.get("H"), a.get("W"), a.get("R"),
                                 a.get("S"), a.get("stride"), a.get("pad"), a.get("dilation"),
                                 a.get("M"), a.dtype()});
       }},
      {{"conv2d_transpose", "transposed 2-d convolution, data NCHW, kernel IOHW",
        {Required("N", "batch"), Required("C", "input channels"), Required("H", "input height"),
         Required("W", "input width"), Required("K", "output channels"),
         Required("R", "kernel height"), Required("S", "kernel width"),
         Optional("stride", 1, "upsampling factor"),
         Optional("pad", 0, "rows/columns removed from each side of the output"),
         Optional("output_padding", 0, "extra rows/columns at the end (< stride)")}},
       [](const OpArgs& a) {
         return Conv2dTranspose({a.get("N"), a.get("C"), a.get("H"), a.get("W"), a.get("K"),
                                 a.get("R"), a.get("S"), a.get("stride"), a.get("pad"),
                                 a.get("output_padding"), a.dtype()});
       }},
      {{"capsule_conv2d", "capsule 2-d convolution (Ansor's CAP), data NHWijC",
        With({Required("N", "batch"), Required("H", "input height"),
              Required("W", "input width"), Required("C", "input capsule channels"),
              Required("K", "output capsule channels"), Required("R", "kernel height"),
              Required("S", "kernel width")},
             {WindowKeys()[0], WindowKeys()[1],
              Optional("capsule", 4, "side of each capsule's pose matrix")})},
       [](const OpArgs& a) {
         return CapsuleConv2d({a.get("N"), a.get("H"), a.get("W"), a.get("C"), a.get("K"),
                               a.get("R"), a.get("S"), a.get("stride"), a.get("pad"),
                               a.get("capsule"), a.dtype()});
       }},
      {{"max_pool2d", "2-d max pooling, NCHW", pool_keys},
       [](const OpArgs& a) {
         return MaxPool2d({a.get("N"), a.get("C"), a.get("H"), a.get("W"), a.get("R"),
                           a.get("S"), a.get("stride"), a.get("pad"), a.dtype()});
       }},
      {{"avg_pool2d", "2-d average pooling, NCHW (padding counted)", pool_keys},
       [](const OpArgs& a) {
         return AvgPool2d({a.get("N"), a.get("C"), a.get("H"), a.get("W"), a.get("R"),
                           a.get("S"), a.get("stride"), a.get("pad"), a.dtype()});
       }},
      {{"softmax", "softmax over the last axis of [M,N]",
        {Required("M", "rows"), Required("N", "row length (softmax axis)")}},
       [](const OpArgs& a) { return Softmax({a.get("M"), a.get("N"), a.dtype()}); }},
      {{"norm", "matrix 2-norm sqrt(sum of squares) of [M,N], output [1]",
        {Required("M", "rows"), Required("N", "columns")}},
       [](const OpArgs& a) { return Norm({a.get("M"), a.get("N"), a.dtype()}); }},
      {{"layer_norm", "layer normalisation of each row of [M,N] with gamma, beta [N]",
        {Required("M", "rows"), Required("N", "row length (normalised axis)")}},
       [](const OpArgs& a) { return LayerNorm({a.get("M"), a.get("N"), a.dtype()}); }},
      {{"relu", "relu[...] = max(data[...], 0) over the given dimensions", dims},
       [](const OpArgs& a) { return BuildElementwise(a, Relu); }},
      {{"add", "add[...] = A[...] + B[...] over the given dimensions", dims},
       [](const OpArgs& a) { return BuildElementwise(a, Add); }},
  };
}

}  // namespace

int64_t OpArgs::get(absl::string_view key) const {
  auto it = values_.find(key);
  return it == values_.end() ? 0 : it->second;
}

const std::vector<std::string>& ElementwiseDimOrder() {
  static const auto* order = new std::vector<std::string>{"B", "M", "N", "K", "C", "D", "H", "W"};
  return *order;
}

const std::vector<OpDef>& OpTable() {
  static const auto* table = new std::vector<OpDef>(MakeTable());
  return *table;
}

const OpDef* FindOp(absl::string_view name) {
  for (const OpDef& op : OpTable())
    if (op.info.name == name) return &op;
  return nullptr;
}

std::vector<OpInfo> ListOps() {
  std::vector<OpInfo> out;
  for (const OpDef& op : OpTable()) out.push_back(op.info);
  return out;
}

}  // namespace tuneforge::te::ops
