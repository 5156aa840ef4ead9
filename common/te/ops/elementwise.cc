#include "common/te/ops/elementwise.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/te/ops/checks.h"
#include "common/te/ops/indexing.h"

namespace tuneforge::te::ops {
namespace {

struct Shaped {
  std::vector<int64_t> shape;
  std::vector<std::pair<std::string, int64_t>> axes;  // lower-case names
  int channel_axis = -1;
};

absl::StatusOr<Shaped> CheckShape(absl::string_view op, const ElementwiseParams& p) {
  if (p.dims.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": needs at least one dimension, e.g. ", op, ":N=1,C=64,H=56,W=56 or ", op,
        ":M=1024,N=1024"));
  if (auto s = RequireNumeric(op, p.dtype); !s.ok()) return s;
  Shaped out;
  for (const auto& [key, extent] : p.dims) {
    if (auto s = RequirePositive(op, {{key, extent}}); !s.ok()) return s;
    if (key == "C") out.channel_axis = static_cast<int>(out.shape.size());
    out.shape.push_back(extent);
    out.axes.push_back({absl::AsciiStrToLower(key), extent});
  }
  if (out.channel_axis < 0) out.channel_axis = static_cast<int>(out.shape.size()) - 1;
  return out;
}

}  // namespace

absl::StatusOr<BuiltOp> Relu(const ElementwiseParams& p) {
  auto shaped = CheckShape("relu", p);
  if (!shaped.ok()) return shaped.status();
  Tensor data = Placeholder("data", shaped->shape, p.dtype);
  std::vector<IterVar> axes = Axes(shaped->axes);
  Expr body = Max(Read(data, AxisExprs(axes)), Const(0, p.dtype));
  auto out = MakeCompute("relu", std::move(axes), std::move(body), "relu");
  if (!out.ok()) return out.status();
  return BuiltOp{*out, shaped->channel_axis};
}

absl::StatusOr<BuiltOp> Add(const ElementwiseParams& p) {
  auto shaped = CheckShape("add", p);
  if (!shaped.ok()) return shaped.status();
  Tensor a = Placeholder("A", shaped->shape, p.dtype);
  Tensor b = Placeholder("B", shaped->shape, p.dtype);
  std::vector<IterVar> axes = Axes(shaped->axes);
  std::vector<Expr> index = AxisExprs(axes);
  auto out = MakeCompute("add", std::move(axes), Read(a, index) + Read(b, index), "add");
  if (!out.ok()) return out.status();
  return BuiltOp{*out, shaped->channel_axis};
}

}  // namespace tuneforge::te::ops
