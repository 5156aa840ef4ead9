// Every math intrinsic on float32 and float64, scalar and vector, against
// the C++ library.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

using te::Intrinsic;
constexpr int kIntrinsicElements = 8;

double Reference(Intrinsic fn, double x, double y) {
  switch (fn) {
    case Intrinsic::kExp: return std::exp(x);
    case Intrinsic::kLog: return std::log(x);
    case Intrinsic::kSqrt: return std::sqrt(x);
    case Intrinsic::kRsqrt: return 1.0 / std::sqrt(x);
    case Intrinsic::kTanh: return std::tanh(x);
    case Intrinsic::kSigmoid: return 1.0 / (1.0 + std::exp(-x));
    case Intrinsic::kErf: return std::erf(x);
    case Intrinsic::kAbs: return std::abs(x);
    case Intrinsic::kFloor: return std::floor(x);
    case Intrinsic::kCeil: return std::ceil(x);
    case Intrinsic::kRound: return std::round(x);
    case Intrinsic::kPow: return std::pow(x, y);
  }
  return 0;
}

bool NeedsPositive(Intrinsic fn) {
  return fn == Intrinsic::kLog || fn == Intrinsic::kSqrt || fn == Intrinsic::kRsqrt ||
         fn == Intrinsic::kPow;
}

const std::vector<Intrinsic> kAll = {
    Intrinsic::kExp,  Intrinsic::kLog,   Intrinsic::kSqrt,  Intrinsic::kRsqrt,
    Intrinsic::kTanh, Intrinsic::kSigmoid, Intrinsic::kErf, Intrinsic::kAbs,
    Intrinsic::kFloor, Intrinsic::kCeil, Intrinsic::kRound, Intrinsic::kPow};

template <class T>
class IntrinsicsTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(IntrinsicsTest, FloatTypes);

TYPED_TEST(IntrinsicsTest, EveryIntrinsicScalarAndVectorMatchesLibm) {
  using T = TypeParam;
  DType t = sizeof(T) == 4 ? DType::Float32() : DType::Float64();
  // Halves test round's ties (away from zero, like std::round).
  std::vector<T> any = {-2.5, -1.3, -0.5, 0, 0.2, 0.5, 1.7, 2.5};
  std::vector<T> pos = {0.1, 0.5, 1, 1.5, 2, 3.3, 7, 10};
  te::Buffer Any = Buf("any", {kIntrinsicElements}, t), Pos = Buf("pos", {kIntrinsicElements}, t);
  std::vector<te::Buffer> args = {Any, Pos};
  std::vector<Stmt> body;
  for (Intrinsic fn : kAll) {
    te::Buffer s = Buf(std::string("s_") + te::IntrinsicName(fn), {kIntrinsicElements}, t);
    te::Buffer v = Buf(std::string("v_") + te::IntrinsicName(fn), {kIntrinsicElements}, t);
    args.push_back(s);
    args.push_back(v);
    const te::Buffer& in = NeedsPositive(fn) ? Pos : Any;
    auto call = [&](Expr index) {
      std::vector<Expr> call_args = {Ld(in, index)};
      if (fn == Intrinsic::kPow) call_args.push_back(Ld(Any, index));
      return te::MakeCall(fn, call_args);
    };
    body.push_back(Loop("i", kIntrinsicElements, [&](Expr i) { return St(s, i, call(i)); }));
    body.push_back(St(v, Vec(0, kIntrinsicElements), call(Vec(0, kIntrinsicElements))));
  }
  std::vector<std::vector<T>> out(2 * kAll.size(), std::vector<T>(kIntrinsicElements));
  std::vector<void*> ptrs = {any.data(), pos.data()};
  for (auto& o : out) ptrs.push_back(o.data());
  absl::StatusOr<int32_t> rc = RunKernel(Func("intrinsics", args, Seq(body)), ptrs);
  ASSERT_TRUE(rc.ok()) << rc.status();
  double tolerance = sizeof(T) == 4 ? 2e-6 : 1e-12;
  for (size_t k = 0; k < kAll.size(); ++k) {
    const std::vector<T>& in = NeedsPositive(kAll[k]) ? pos : any;
    for (int i = 0; i < kIntrinsicElements; ++i) {
      T want = static_cast<T>(Reference(kAll[k], in[i], any[i]));
      double bound = tolerance * (1 + std::abs(static_cast<double>(want)));
      EXPECT_NEAR(out[2 * k][i], want, bound) << "scalar " << te::IntrinsicName(kAll[k]) << "(" << in[i] << ")";
      EXPECT_NEAR(out[2 * k + 1][i], want, bound) << "vector " << te::IntrinsicName(kAll[k]) << "(" << in[i] << ")";
    }
  }
}

// MakeCall turns integer arguments into floats; a hand-built Call keeps an
// integer abs, which codegen supports directly.
TEST(IntrinsicsTest, IntegerAbsScalarAndVector) {
  auto int_abs = [](Expr e) {
    return Expr(std::make_shared<const te::ExprNode>(
        te::ExprNode{e.dtype(), te::Call{Intrinsic::kAbs, {e}}}));
  };
  te::Buffer A = Buf("A", {kIntrinsicElements}, DType::Int32()), S = Buf("S", {kIntrinsicElements}, DType::Int32());
  te::Buffer V = Buf("V", {kIntrinsicElements}, DType::Int32());
  Stmt body = Seq({Loop("i", kIntrinsicElements, [&](Expr i) { return St(S, i, int_abs(Ld(A, i))); }),
                   St(V, Vec(0, kIntrinsicElements), int_abs(Ld(A, Vec(0, kIntrinsicElements))))});
  std::vector<int32_t> a = {-7, -1, 0, 1, 5, -100000, 3, -2}, s(kIntrinsicElements), v(kIntrinsicElements);
  absl::StatusOr<int32_t> rc = RunKernel(Func("int_abs", {A, S, V}, body), {a.data(), s.data(), v.data()});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < kIntrinsicElements; ++i) {
    EXPECT_EQ(s[i], std::abs(a[i]));
    EXPECT_EQ(v[i], std::abs(a[i]));
  }
}

}  // namespace
}  // namespace tuneforge::codegen::testing
