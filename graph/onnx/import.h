// ONNX model -> graph IR. Opsets 1 to 17 of the default domain (the
// attributes older opsets used are read where they differ: legacy
// broadcasting, Reshape's shape attribute, Slice's and Clip's attributes);
// static shapes only. Every problem (a malformed file, an unsupported op, a dynamic
// dimension, a missing initializer) is one error naming the node, its op and
// what is supported; no input bytes crash the importer.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/ir/graph.h"
#include "onnx/onnx_pb.h"

namespace tuneforge::graph {

inline constexpr int64_t kMinOpset = 1;
inline constexpr int64_t kMaxOpset = 17;

struct ImportOptions {
  // Graph inputs given a fixed value: they become constants (and leave the
  // model's run-time inputs), so shapes, axes or indices fed as inputs fold
  // at import.
  std::map<std::string, std::shared_ptr<const te::NDArray>> frozen_inputs;
};

absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options = {});
// `origin` names the bytes in messages (a path).
absl::StatusOr<Graph> ImportOnnxBytes(absl::string_view bytes, const std::string& origin,
                                      const ImportOptions& options = {});
absl::StatusOr<Graph> ImportOnnxModel(const onnx::ModelProto& model,
                                      const ImportOptions& options = {});

}  // namespace tuneforge::graph
