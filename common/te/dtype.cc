#include "common/te/dtype.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::te {

int DType::bits() const {
  switch (scalar) {
    case ScalarType::kBool: return 1;
    case ScalarType::kInt8: return 8;
    case ScalarType::kInt32: return 32;
    case ScalarType::kInt64: return 64;
    case ScalarType::kFloat32: return 32;
    case ScalarType::kFloat64: return 64;
  }
  return 0;
}

static const char* ScalarName(ScalarType s) {
  switch (s) {
    case ScalarType::kBool: return "bool";
    case ScalarType::kInt8: return "int8";
    case ScalarType::kInt32: return "int32";
    case ScalarType::kInt64: return "int64";
    case ScalarType::kFloat32: return "float32";
    case ScalarType::kFloat64: return "float64";
  }
  return "?";
}

std::string ToString(DType t) {
  if (t.lanes == 1) return ScalarName(t.scalar);
  return absl::StrCat(ScalarName(t.scalar), "x", t.lanes);
}

std::optional<DType> ParseDType(std::string_view name) {
  for (ScalarType s : {ScalarType::kBool, ScalarType::kInt8, ScalarType::kInt32, ScalarType::kInt64,
                       ScalarType::kFloat32, ScalarType::kFloat64}) {
    if (name == ScalarName(s)) return DType{s, 1};
  }
  return std::nullopt;
}

}  // namespace tuneforge::te
