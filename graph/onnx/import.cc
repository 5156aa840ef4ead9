#include "graph/onnx/import.h"

#include <fstream>
#include <limits>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/coded_stream.h"
#include "graph/onnx/converters.h"
#include "graph/onnx/import_context.h"
#include "graph/onnx/tensor_proto.h"

namespace tuneforge::graph {
namespace {

using onnx_import::ImportContext;

absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      if (o.version() < kMinOpset || o.version() > kMaxOpset)
        return absl::UnimplementedError(absl::StrCat(
            "the model uses opset ", o.version(), " of the default ONNX domain; supported: ",
            kMinOpset, " to ", kMaxOpset, " (convert it with onnx.version_converter)"));
      return o.version();
    }
  return absl::UnimplementedError(
      "the model imports no opset of the default ONNX domain; only its ops are supported");
}

// A graph input's type: a tensor of a supported element type with every
// dimension a positive number.
absl::Status AddInput(const onnx::ValueInfoProto& info, const ImportOptions& options,
                      ImportContext& ctx) {
  std::string what = absl::StrCat("graph input '", info.name(), "'");
  if (!info.type().has_tensor_type())
    return absl::UnimplementedError(absl::StrCat(what, " is not a tensor"));
  const onnx::TypeProto::Tensor& t = info.type().tensor_type();
  auto dtype = onnx_import::DTypeFromOnnx(t.elem_type(), what);
  if (!dtype.ok()) return dtype.status();
  if (!t.has_shape())
    return absl::UnimplementedError(absl::StrCat(what, " has no shape; give it a static shape"));
  std::vector<int64_t> shape;
  for (int d = 0; d < t.shape().dim_size(); ++d) {
    const onnx::TensorShapeProto::Dimension& dim = t.shape().dim(d);
    if (!dim.has_dim_value() || dim.dim_value() <= 0)
      return absl::UnimplementedError(absl::StrCat(
          what, " has a dynamic dimension ", d,
          dim.has_dim_param() ? absl::StrCat(" ('", dim.dim_param(), "')") : std::string(),
          "; dynamic shapes are not supported: export the model with fixed input shapes"));
    shape.push_back(dim.dim_value());
  }
  bool scalar = shape.empty();
  if (scalar) shape = {1};
  if (auto frozen = options.frozen_inputs.find(info.name()); frozen != options.frozen_inputs.end()) {
    const te::NDArray& value = *frozen->second;
    if (value.dtype() != *dtype || value.num_elements() != Value{"", *dtype, shape, nullptr}.num_elements())
      return absl::InvalidArgumentError(absl::StrCat("the value given for ", what, " has the wrong type or size"));
    Value v{info.name(), *dtype, shape, frozen->second, scalar};
    ctx.Bind(info.name(), ctx.graph().AddValue(std::move(v)));
    return absl::OkStatus();
  }
  ValueId id = ctx.graph().AddValue(Value{info.name(), *dtype, shape, nullptr, scalar});
  ctx.graph().inputs.push_back(id);
  ctx.Bind(info.name(), id);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Graph> ImportOnnxModel(const onnx::ModelProto& model, const ImportOptions& options) {
  auto opset = DefaultOpset(model);
  if (!opset.ok()) return opset.status();
  const onnx::GraphProto& g = model.graph();
  Graph graph;
  ImportContext ctx(&graph, *opset);

  absl::flat_hash_set<std::string> initializer_names;
  for (const onnx::TensorProto& t : g.initializer()) {
    auto array = onnx_import::TensorFromProto(t);
    if (!array.ok()) return array.status();
    initializer_names.insert(t.name());
    ctx.Bind(t.name(), ctx.AddConstant(*std::move(array), t.name(), t.dims_size() == 0));
  }
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (initializer_names.contains(in.name())) continue;  // old models list weights as inputs
    if (auto s = AddInput(in, options, ctx); !s.ok()) return s;
  }
  for (const onnx::NodeProto& node : g.node()) {
    ctx.Begin(&node);
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return ctx.Unsupported(absl::StrCat("ops of domain '", node.domain(),
                                          "' are not supported; only the default ONNX domain is"));
    onnx_import::ConvertFn convert = onnx_import::FindConverter(node.op_type());
    if (!convert)
      return ctx.Unsupported(absl::StrCat("this op is not supported; supported ops: ",
                                          absl::StrJoin(onnx_import::SupportedOps(), ", ")));
    if (auto s = convert(ctx); !s.ok()) return s;
  }
  if (g.output_size() == 0) return absl::InvalidArgumentError("the model has no outputs");
  for (const onnx::ValueInfoProto& out : g.output()) {
    auto id = ctx.Lookup(out.name());
    if (!id.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("graph output '", out.name(), "' is not produced by any node"));
    graph.outputs.push_back(*id);
  }
  return graph;
}

absl::StatusOr<Graph> ImportOnnxBytes(absl::string_view bytes, const std::string& origin,
                                      const ImportOptions& options) {
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(std::numeric_limits<int>::max());
  if (bytes.empty() || !model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage() ||
      !model.has_graph())
    return absl::InvalidArgumentError(absl::StrCat(
        origin, " is not an ONNX model (the bytes do not parse as a ModelProto with a graph); "
                "check that the file is a complete .onnx file"));
  auto graph = ImportOnnxModel(model, options);
  if (!graph.ok())
    return absl::Status(graph.status().code(), absl::StrCat(origin, ": ", graph.status().message()));
  return graph;
}

absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open the model '", path, "'"));
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  if (data.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return absl::InvalidArgumentError(absl::StrCat(path, " is larger than 2 GiB"));
  return ImportOnnxBytes(data, path, options);
}

}  // namespace tuneforge::graph
