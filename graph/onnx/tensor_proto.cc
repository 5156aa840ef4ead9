#include "graph/onnx/tensor_proto.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace tuneforge::graph::onnx_import {
namespace {

using onnx::TensorProto;

const char* OnnxTypeName(int32_t t) {
  return TensorProto::DataType_IsValid(t) ? TensorProto::DataType_Name(t).c_str() : "unknown";
}

// Copies n typed values into `out` converting to its dtype.
template <class Values>
void CopyValues(const Values& values, te::NDArray* out) {
  int64_t i = 0;
  for (auto v : values) {
    if (out->dtype().is_float()) out->SetDouble(i++, static_cast<double>(v));
    else out->SetInt(i++, static_cast<int64_t>(v));
  }
}

template <class T>
void CopyRaw(const std::string& raw, te::NDArray* out) {
  int64_t n = out->num_elements();
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    if (out->dtype().is_float()) out->SetDouble(i, static_cast<double>(v));
    else out->SetInt(i, static_cast<int64_t>(v));
  }
}

size_t ElementSize(int32_t t) {
  switch (t) {
    case TensorProto::FLOAT: case TensorProto::INT32: return 4;
    case TensorProto::DOUBLE: case TensorProto::INT64: return 8;
    case TensorProto::INT8: case TensorProto::UINT8: case TensorProto::BOOL: return 1;
    case TensorProto::INT16: case TensorProto::UINT16: return 2;
    default: return 0;
  }
}

}  // namespace

absl::StatusOr<te::DType> DTypeFromOnnx(int32_t elem_type, const std::string& what) {
  switch (elem_type) {
    case TensorProto::FLOAT: return te::DType::Float32();
    case TensorProto::DOUBLE: return te::DType::Float64();
    case TensorProto::INT8: return te::DType::Int8();
    case TensorProto::INT32: case TensorProto::INT16: case TensorProto::UINT8:
    case TensorProto::UINT16: case TensorProto::BOOL:
      return te::DType::Int32();
    case TensorProto::INT64: return te::DType::Int64();
    default:
      return absl::UnimplementedError(absl::StrCat(
          what, " has element type ", OnnxTypeName(elem_type),
          "; supported: float, double, int8, int32, int64 (uint8, int16 and bool read as int32)"));
  }
}

absl::StatusOr<te::NDArray> TensorFromProto(const TensorProto& t) {
  std::string what = absl::StrCat("tensor '", t.name(), "'");
  if (t.data_location() == TensorProto::EXTERNAL || t.external_data_size() > 0)
    return absl::UnimplementedError(absl::StrCat(
        what, " keeps its data in an external file; save the model with the data inside "
              "(onnx.save(model, path, save_as_external_data=False))"));
  auto dtype = DTypeFromOnnx(t.data_type(), what);
  if (!dtype.ok()) return dtype.status();
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 40) / d))
      return absl::InvalidArgumentError(absl::StrCat(what, " has an invalid dimension ", d));
    n *= d;
  }
  // NDArray has no rank-0 or empty form: scalars are [1]; empty tensors are refused.
  if (n == 0) return absl::UnimplementedError(absl::StrCat(what, " is empty (a zero dimension)"));
  std::vector<int64_t> stored = shape.empty() ? std::vector<int64_t>{1} : shape;
  auto out = te::NDArray::Empty(*dtype, stored);
  if (!out.ok()) return out.status();
  const int32_t type = t.data_type();
  if (!t.raw_data().empty()) {
    size_t size = ElementSize(type);
    if (t.raw_data().size() != static_cast<size_t>(n) * size)
      return absl::InvalidArgumentError(absl::StrCat(what, " has ", t.raw_data().size(),
                                                     " bytes of raw data for ", n, " elements of ",
                                                     size, " bytes"));
    switch (type) {
      case TensorProto::FLOAT: CopyRaw<float>(t.raw_data(), &*out); break;
      case TensorProto::DOUBLE: CopyRaw<double>(t.raw_data(), &*out); break;
      case TensorProto::INT8: CopyRaw<int8_t>(t.raw_data(), &*out); break;
      case TensorProto::UINT8: case TensorProto::BOOL: CopyRaw<uint8_t>(t.raw_data(), &*out); break;
      case TensorProto::INT16: CopyRaw<int16_t>(t.raw_data(), &*out); break;
      case TensorProto::UINT16: CopyRaw<uint16_t>(t.raw_data(), &*out); break;
      case TensorProto::INT32: CopyRaw<int32_t>(t.raw_data(), &*out); break;
      case TensorProto::INT64: CopyRaw<int64_t>(t.raw_data(), &*out); break;
      default: break;
    }
    return out;
  }
  int64_t have = type == TensorProto::FLOAT    ? t.float_data_size()
                 : type == TensorProto::DOUBLE ? t.double_data_size()
                 : type == TensorProto::INT64  ? t.int64_data_size()
                                               : t.int32_data_size();
  if (have != n)
    return absl::InvalidArgumentError(
        absl::StrCat(what, " has ", have, " values for a shape of ", n, " elements"));
  if (type == TensorProto::FLOAT) CopyValues(t.float_data(), &*out);
  else if (type == TensorProto::DOUBLE) CopyValues(t.double_data(), &*out);
  else if (type == TensorProto::INT64) CopyValues(t.int64_data(), &*out);
  else CopyValues(t.int32_data(), &*out);
  return out;
}

TensorProto TensorToProto(const te::NDArray& a, const std::string& name) {
  TensorProto t;
  t.set_name(name);
  for (int64_t d : a.shape()) t.add_dims(d);
  switch (a.dtype().scalar) {
    case te::ScalarType::kFloat32: t.set_data_type(TensorProto::FLOAT); break;
    case te::ScalarType::kFloat64: t.set_data_type(TensorProto::DOUBLE); break;
    case te::ScalarType::kInt8: t.set_data_type(TensorProto::INT8); break;
    case te::ScalarType::kInt32: t.set_data_type(TensorProto::INT32); break;
    case te::ScalarType::kInt64: t.set_data_type(TensorProto::INT64); break;
    case te::ScalarType::kBool: t.set_data_type(TensorProto::BOOL); break;
  }
  t.set_raw_data(std::string(static_cast<const char*>(a.data()), a.nbytes()));
  return t;
}

absl::StatusOr<te::NDArray> ReadTensorFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  std::stringstream bytes;
  bytes << in.rdbuf();
  TensorProto t;
  if (!t.ParseFromString(bytes.str()))
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not a serialized ONNX TensorProto"));
  auto a = TensorFromProto(t);
  if (!a.ok()) return absl::Status(a.status().code(), absl::StrCat(path, ": ", a.status().message()));
  return a;
}

}  // namespace tuneforge::graph::onnx_import
