// ONNX TensorProto <-> NDArray, for initializers, Constant nodes and the
// backend-test data files (input_0.pb, output_0.pb).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/te/ndarray.h"
#include "onnx/onnx_pb.h"

namespace tuneforge::graph::onnx_import {

// float, double, int8, int32, int64 (uint8, int16 and bool are widened to
// int32); raw_data or the typed fields. Errors: external data, strings, a
// data size that does not match the dims, an unsupported element type.
absl::StatusOr<te::NDArray> TensorFromProto(const onnx::TensorProto& t);
// The ONNX element type (TensorProto::DataType) as ours, or an error naming it.
absl::StatusOr<te::DType> DTypeFromOnnx(int32_t elem_type, const std::string& what);
onnx::TensorProto TensorToProto(const te::NDArray& a, const std::string& name);
// Reads a serialized TensorProto file (the backend tests' .pb files).
absl::StatusOr<te::NDArray> ReadTensorFile(const std::string& path);

}  // namespace tuneforge::graph::onnx_import
