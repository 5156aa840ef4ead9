// Casts between every pair of types, scalar and vector, against C++
// conversions (float -> int rounds toward zero, x -> bool is x != 0).
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

using te::ScalarType;
constexpr int kCastElements = 8;

// Source values, as doubles, chosen so every conversion is defined
// (float -> int8 stays in range; wider ints wrap when narrowed).
std::vector<double> SourceValues(ScalarType s) {
  switch (s) {
    case ScalarType::kBool: return {0, 1, 1, 0, 1, 0, 0, 1};
    case ScalarType::kInt8: return {-128, -5, -1, 0, 1, 7, 100, 127};
    case ScalarType::kInt32: return {-100000, -300, -1, 0, 1, 255, 300, 70000};
    case ScalarType::kInt64: return {-5e9, -70000, -1, 0, 1, 129, 300, 5e9};
    case ScalarType::kFloat32:
    case ScalarType::kFloat64: return {-100.75, -2.5, -0.5, 0, 0.25, 2.5, 99.9, 126.5};
  }
  return {};
}

// Storage of one element: raw bytes of the C++ type.
struct Column {
  ScalarType type;
  std::vector<unsigned char> bytes;
};

template <class T>
std::vector<unsigned char> Pack(const std::vector<T>& v) {
  std::vector<unsigned char> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// C++'s conversion of `value` (held in source type `from`) to type `to`.
Column Convert(ScalarType from, const std::vector<double>& values, ScalarType to) {
  auto convert = [&](auto tag) {
    using D = decltype(tag);
    std::vector<D> out;
    for (double v : values) {
      switch (from) {
        case ScalarType::kBool: out.push_back(static_cast<D>(v != 0)); break;
        case ScalarType::kInt8: out.push_back(static_cast<D>(static_cast<int8_t>(v))); break;
        case ScalarType::kInt32: out.push_back(static_cast<D>(static_cast<int32_t>(v))); break;
        case ScalarType::kInt64: out.push_back(static_cast<D>(static_cast<int64_t>(v))); break;
        case ScalarType::kFloat32: out.push_back(static_cast<D>(static_cast<float>(v))); break;
        case ScalarType::kFloat64: out.push_back(static_cast<D>(v)); break;
      }
    }
    return Column{to, Pack(out)};
  };
  switch (to) {
    case ScalarType::kBool: {
      // x != 0 in the source type; stored as one byte, 0 or 1.
      Column exact = convert(double{});
      std::vector<unsigned char> bytes;
      for (size_t i = 0; i < values.size(); ++i) {
        double x;
        std::memcpy(&x, exact.bytes.data() + i * sizeof(double), sizeof(double));
        bytes.push_back(x != 0 ? 1 : 0);
      }
      return Column{to, bytes};
    }
    case ScalarType::kInt8: return convert(int8_t{});
    case ScalarType::kInt32: return convert(int32_t{});
    case ScalarType::kInt64: return convert(int64_t{});
    case ScalarType::kFloat32: return convert(float{});
    case ScalarType::kFloat64: return convert(double{});
  }
  return {};
}

TEST(CastsTest, EveryPairScalarAndVectorMatchesCpp) {
  const std::vector<ScalarType> types = {ScalarType::kBool,  ScalarType::kInt8,
                                         ScalarType::kInt32, ScalarType::kInt64,
                                         ScalarType::kFloat32, ScalarType::kFloat64};
  std::vector<te::Buffer> args;
  std::vector<Column> inputs, expected, outputs_scalar, outputs_vector;
  std::vector<Stmt> body;
  for (ScalarType from : types) {
    te::Buffer in = Buf("in", {kCastElements}, DType{from, 1});
    args.push_back(in);
    inputs.push_back(Convert(ScalarType::kFloat64, SourceValues(from), from));
  }
  for (size_t f = 0; f < types.size(); ++f) {
    for (ScalarType to : types) {
      if (to == types[f]) continue;
      te::Buffer s = Buf("s", {kCastElements}, DType{to, 1}), v = Buf("v", {kCastElements}, DType{to, 1});
      args.push_back(s);
      args.push_back(v);
      const te::Buffer& in = args[f];
      body.push_back(Loop("i", kCastElements, [&](Expr i) {
        return St(s, i, te::MakeCast(DType{to, 1}, Ld(in, i)));
      }));
      body.push_back(
          St(v, Vec(0, kCastElements), te::MakeCast(DType{to, kCastElements}, Ld(in, Vec(0, kCastElements)))));
      expected.push_back(Convert(types[f], SourceValues(types[f]), to));
      outputs_scalar.push_back(Column{to, std::vector<unsigned char>(expected.back().bytes.size(), 0xAB)});
      outputs_vector.push_back(outputs_scalar.back());
    }
  }
  std::vector<void*> ptrs;
  for (Column& c : inputs) ptrs.push_back(c.bytes.data());
  for (size_t k = 0; k < expected.size(); ++k) {
    ptrs.push_back(outputs_scalar[k].bytes.data());
    ptrs.push_back(outputs_vector[k].bytes.data());
  }
  absl::StatusOr<int32_t> rc = RunKernel(Func("casts", args, Seq(body)), ptrs);
  ASSERT_TRUE(rc.ok()) << rc.status();
  size_t k = 0;
  for (ScalarType from : types) {
    for (ScalarType to : types) {
      if (to == from) continue;
      std::string what = te::ToString(DType{from, 1}) + " -> " + te::ToString(DType{to, 1});
      EXPECT_EQ(outputs_scalar[k].bytes, expected[k].bytes) << "scalar " << what;
      EXPECT_EQ(outputs_vector[k].bytes, expected[k].bytes) << "vector " << what;
      ++k;
    }
  }
}

}  // namespace
}  // namespace tuneforge::codegen::testing
