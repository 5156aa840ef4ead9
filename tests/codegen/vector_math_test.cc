// float32 exp, log, erf, tanh and sigmoid (vector_math.h) over a sample of every
// float: within a few ulp of the double-precision C library rounded to float,
// inf and NaN where it gives them, and the same bits whether the loop is
// vectorized or not; compiled without a call to the C library on x86-64 and
// AArch64, so a vector of 16 costs a few dozen instructions, not 16 calls.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/codegen/object_info.h"
#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

using te::Intrinsic;
constexpr int kMathLanes = 16;

// Every 4,093rd bit pattern (both signs, denormals, inf and NaN included),
// the edges of each formula and values near them.
std::vector<float> SampleOfAllFloats() {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits <= UINT32_MAX; bits += 4093) {
    xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  }
  const float edges[] = {0.0f,     0.625f,   1.0f,      4.0f,     88.7228f, 88.7229f, 88.8f,
                         -87.33f,  -87.34f,  -103.97f,  -103.98f, -104.0f,  -150.0f,  1e-30f,
                         1e-45f,   0.3466f,  9.0f,      10.0f,    3.9f,     0.99999f, 1.00001f,
                         std::numeric_limits<float>::infinity()};
  for (float e : edges) {
    for (float x : {e, -e, std::nextafter(e, 0.0f), std::nextafter(e, 1e30f), -std::nextafter(e, 0.0f)}) {
      xs.push_back(x);
    }
  }
  while (xs.size() % kMathLanes != 0) xs.push_back(0.5f);
  return xs;
}

double Reference(Intrinsic fn, double x) {
  switch (fn) {
    case Intrinsic::kExp: return std::exp(x);
    case Intrinsic::kLog: return std::log(x);
    case Intrinsic::kErf: return std::erf(x);
    case Intrinsic::kTanh: return std::tanh(x);
    case Intrinsic::kSigmoid: return 1.0 / (1.0 + std::exp(-x));
    default: return 0;
  }
}

// Distance in representable floats (across zero and denormals alike).
int64_t UlpDistance(float a, float b) {
  auto ordered = [](float f) {
    int64_t bits = std::bit_cast<int32_t>(f);
    return bits < 0 ? INT32_MIN - bits : bits;
  };
  return std::abs(ordered(a) - ordered(b));
}

struct MathOutputs {
  std::vector<float> scalar, vector;
};

MathOutputs RunMath(Intrinsic fn, const std::vector<float>& xs) {
  const int64_t n = static_cast<int64_t>(xs.size());
  te::Buffer in = Buf("in", {n}), scalar = Buf("scalar", {n}), vector = Buf("vector", {n});
  auto call = [&](Expr x) { return te::MakeCall(fn, {x}); };
  Stmt body = Seq({Loop("i", n, [&](Expr i) { return St(scalar, i, call(Ld(in, i))); }),
                   Loop("v", n / kMathLanes, [&](Expr v) {
                     Expr index = Vec(v * kMathLanes, kMathLanes);
                     return St(vector, index, call(Ld(in, index)));
                   })});
  MathOutputs out{std::vector<float>(xs.size()), std::vector<float>(xs.size())};
  std::vector<float> input = xs;
  absl::StatusOr<int32_t> rc = RunKernel(Func(std::string("math_") + te::IntrinsicName(fn),
                                              {in, scalar, vector}, body),
                                         {input.data(), out.scalar.data(), out.vector.data()});
  EXPECT_TRUE(rc.ok() && *rc == 0) << rc.status();
  return out;
}

struct MathCase {
  Intrinsic fn;
  int64_t max_ulp;
};

class VectorMathTest : public ::testing::TestWithParam<MathCase> {};

TEST_P(VectorMathTest, WithinUlpOfLibmOverASampleOfEveryFloat) {
  const MathCase c = GetParam();
  const std::vector<float> xs = SampleOfAllFloats();
  const MathOutputs out = RunMath(c.fn, xs);
  int64_t worst = 0;
  float worst_x = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want = static_cast<float>(Reference(c.fn, xs[i]));
    const float got = out.vector[i];
    ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(out.scalar[i]))
        << "vector and scalar differ at x = " << xs[i] << ": " << got << " vs " << out.scalar[i];
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << te::IntrinsicName(c.fn) << "(" << xs[i] << ") = " << got;
      continue;
    }
    ASSERT_FALSE(std::isnan(got)) << te::IntrinsicName(c.fn) << "(" << xs[i] << ") is NaN, want " << want;
    const int64_t ulp = UlpDistance(got, want);
    if (ulp > worst) worst = ulp, worst_x = xs[i];
  }
  std::printf("%s: max %lld ulp (at x = %.9g) over %zu inputs\n", te::IntrinsicName(c.fn),
              static_cast<long long>(worst), worst_x, xs.size());
  EXPECT_LE(worst, c.max_ulp) << te::IntrinsicName(c.fn) << " at x = " << worst_x;
}

TEST_P(VectorMathTest, CompilesToInstructionsWithoutLibmCalls) {
  te::Buffer in = Buf("in", {64}), out = Buf("out", {64});
  LoweredFunc f = Func("math_kernel", {in, out}, Loop("v", 64 / kMathLanes, [&](Expr v) {
                         Expr index = Vec(v * kMathLanes, kMathLanes);
                         return St(out, index, te::MakeCall(GetParam().fn, {Ld(in, index)}));
                       }));
  absl::StatusOr<Target> arm = Target::Parse("aarch64");
  ASSERT_TRUE(arm.ok()) << arm.status();
  for (const Target& target : {Target::Host(), *arm}) {
    absl::StatusOr<CompiledObject> object = CompileToObject(f, target);
    ASSERT_TRUE(object.ok()) << object.status();
    absl::StatusOr<ObjectInfo> info = InspectObject(object->object);
    ASSERT_TRUE(info.ok()) << info.status();
    for (const std::string& symbol : info->undefined_symbols) {
      for (const char* libm : {"expf", "logf", "erff", "tanhf", "exp", "log", "erf", "tanh"}) {
        EXPECT_NE(symbol, libm) << te::IntrinsicName(GetParam().fn) << " calls " << symbol << " on "
                                << target.triple;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Float32, VectorMathTest,
                         ::testing::Values(MathCase{Intrinsic::kExp, 2}, MathCase{Intrinsic::kLog, 2}, MathCase{Intrinsic::kErf, 2},
                                           MathCase{Intrinsic::kTanh, 2}, MathCase{Intrinsic::kSigmoid, 2}),
                         [](const auto& info) { return std::string(te::IntrinsicName(info.param.fn)); });

}  // namespace
}  // namespace tuneforge::codegen::testing
