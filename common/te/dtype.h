// Element types of tensors and expressions, with an optional vector lane count
// (lanes > 1 appears only after vectorization in lowering).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tuneforge::te {

enum class ScalarType : uint8_t { kBool, kInt8, kInt32, kInt64, kFloat32, kFloat64 };

struct DType {
  ScalarType scalar = ScalarType::kFloat32;
  int lanes = 1;

  static constexpr DType Bool() { return {ScalarType::kBool, 1}; }
  static constexpr DType Int8() { return {ScalarType::kInt8, 1}; }
  static constexpr DType Int32() { return {ScalarType::kInt32, 1}; }
  static constexpr DType Int64() { return {ScalarType::kInt64, 1}; }
  static constexpr DType Float32() { return {ScalarType::kFloat32, 1}; }
  static constexpr DType Float64() { return {ScalarType::kFloat64, 1}; }
  // The type of every loop variable and index expression.
  static constexpr DType Index() { return Int64(); }

  bool is_float() const { return scalar == ScalarType::kFloat32 || scalar == ScalarType::kFloat64; }
  bool is_int() const {
    return scalar == ScalarType::kInt8 || scalar == ScalarType::kInt32 || scalar == ScalarType::kInt64;
  }
  bool is_bool() const { return scalar == ScalarType::kBool; }
  bool is_vector() const { return lanes > 1; }
  int bits() const;          // of one lane
  int bytes() const { return bits() <= 8 ? 1 : bits() / 8; }  // storage size of one lane
  DType element() const { return {scalar, 1}; }
  DType with_lanes(int n) const { return {scalar, n}; }

  friend bool operator==(DType a, DType b) { return a.scalar == b.scalar && a.lanes == b.lanes; }
  friend bool operator!=(DType a, DType b) { return !(a == b); }
};

// "float32", "int64", "float32x16" ...
std::string ToString(DType t);
// Parses the scalar names ToString prints ("float32", "int32", "bool", ...).
std::optional<DType> ParseDType(std::string_view name);

}  // namespace tuneforge::te
