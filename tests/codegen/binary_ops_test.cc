// Every binary operator on every numeric type, scalar and 8-lane vector,
// checked against C++ (floor division/modulo with negative operands too).
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

using te::BinOp;

template <class T>
DType DTypeOf();
template <> DType DTypeOf<int8_t>() { return DType::Int8(); }
template <> DType DTypeOf<int32_t>() { return DType::Int32(); }
template <> DType DTypeOf<int64_t>() { return DType::Int64(); }
template <> DType DTypeOf<float>() { return DType::Float32(); }
template <> DType DTypeOf<double>() { return DType::Float64(); }

template <class T>
T FloorDivRef(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::floor(a / b);
  } else {
    T q = static_cast<T>(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  }
}

template <class T>
T FloorModRef(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a - std::floor(a / b) * b;
  } else {
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  }
}

template <class T>
T ArithRef(BinOp op, T a, T b) {
  switch (op) {
    case BinOp::kAdd: return static_cast<T>(a + b);
    case BinOp::kSub: return static_cast<T>(a - b);
    case BinOp::kMul: return static_cast<T>(a * b);
    case BinOp::kDiv: return static_cast<T>(a / b);
    case BinOp::kMod:
      if constexpr (std::is_floating_point_v<T>) return std::fmod(a, b);
      else return static_cast<T>(a % b);
    case BinOp::kFloorDiv: return FloorDivRef(a, b);
    case BinOp::kFloorMod: return FloorModRef(a, b);
    case BinOp::kMin: return std::min(a, b);
    case BinOp::kMax: return std::max(a, b);
    default: return T{};
  }
}

template <class T>
bool CompareRef(BinOp op, T a, T b) {
  switch (op) {
    case BinOp::kEQ: return a == b;
    case BinOp::kNE: return a != b;
    case BinOp::kLT: return a < b;
    case BinOp::kLE: return a <= b;
    case BinOp::kGT: return a > b;
    case BinOp::kGE: return a >= b;
    default: return false;
  }
}

const std::vector<BinOp> kArithmetic = {BinOp::kAdd,      BinOp::kSub,      BinOp::kMul,
                                        BinOp::kDiv,      BinOp::kMod,      BinOp::kFloorDiv,
                                        BinOp::kFloorMod, BinOp::kMin,      BinOp::kMax};
const std::vector<BinOp> kComparisons = {BinOp::kEQ, BinOp::kNE, BinOp::kLT,
                                         BinOp::kLE, BinOp::kGT, BinOp::kGE};
constexpr int kBinaryOpElements = 16;
constexpr int kLanes = 8;

// Operands with every sign combination, equal pairs, and remainders of
// both signs; no zero divisor and no overflow beyond the type's wrap-around.
template <class T>
void Operands(std::vector<T>& a, std::vector<T>& b) {
  a = {7, -7, 7, -7, 6, -6, 0, 5, 3, -1, 100, -100, 9, 2, -9, 1};
  b = {2, 2, -2, -2, 3, -3, 5, 5, 7, 4, 9, -9, -4, 2, 4, -1};
  if constexpr (std::is_floating_point_v<T>) {
    for (T& x : a) x = static_cast<T>(x * 1.25);
  }
}

template <class T>
class BinaryOpsTest : public ::testing::Test {};
using NumericTypes = ::testing::Types<int8_t, int32_t, int64_t, float, double>;
TYPED_TEST_SUITE(BinaryOpsTest, NumericTypes);

TYPED_TEST(BinaryOpsTest, EveryOperatorScalarAndVectorMatchesCpp) {
  using T = TypeParam;
  DType t = DTypeOf<T>();
  te::Buffer A = Buf("A", {kBinaryOpElements}, t), B = Buf("B", {kBinaryOpElements}, t);
  std::vector<te::Buffer> args = {A, B};
  std::vector<Stmt> body;
  std::vector<BinOp> ops = kArithmetic;
  ops.insert(ops.end(), kComparisons.begin(), kComparisons.end());
  for (BinOp op : ops) {
    DType out_type = te::IsComparison(op) ? DType::Bool() : t;
    te::Buffer scalar_out = Buf(std::string("s_") + te::BinOpSymbol(op), {kBinaryOpElements}, out_type);
    te::Buffer vector_out = Buf(std::string("v_") + te::BinOpSymbol(op), {kBinaryOpElements}, out_type);
    args.push_back(scalar_out);
    args.push_back(vector_out);
    body.push_back(Loop("i", kBinaryOpElements, [&](Expr i) {
      return St(scalar_out, i, te::MakeBinary(op, Ld(A, i), Ld(B, i)));
    }));
    body.push_back(Loop("v", kBinaryOpElements / kLanes, [&](Expr v) {
      Expr idx = Vec(v * kLanes, kLanes);
      return St(vector_out, idx, te::MakeBinary(op, Ld(A, idx), Ld(B, idx)));
    }));
  }
  std::vector<T> a, b;
  Operands(a, b);
  std::vector<std::vector<T>> arith_out(2 * kArithmetic.size(), std::vector<T>(kBinaryOpElements));
  std::vector<std::vector<uint8_t>> compare_out(2 * kComparisons.size(), std::vector<uint8_t>(kBinaryOpElements, 7));
  std::vector<void*> ptrs = {a.data(), b.data()};
  for (auto& o : arith_out) ptrs.push_back(o.data());
  for (auto& o : compare_out) ptrs.push_back(o.data());
  absl::StatusOr<int32_t> rc = RunKernel(Func("binary_ops", args, Seq(body)), ptrs);
  ASSERT_TRUE(rc.ok()) << rc.status();
  ASSERT_EQ(*rc, 0);

  for (size_t k = 0; k < kArithmetic.size(); ++k) {
    for (int i = 0; i < kBinaryOpElements; ++i) {
      T want = ArithRef(kArithmetic[k], a[i], b[i]);
      std::string what = std::string(te::BinOpSymbol(kArithmetic[k])) + " of " +
                         std::to_string(a[i]) + ", " + std::to_string(b[i]);
      if constexpr (std::is_floating_point_v<T>) {
        // FMA contraction may round a - floor(a/b)*b differently.
        EXPECT_NEAR(arith_out[2 * k][i], want, 1e-5 * (1 + std::abs(want))) << "scalar " << what;
        EXPECT_NEAR(arith_out[2 * k + 1][i], want, 1e-5 * (1 + std::abs(want))) << "vector " << what;
      } else {
        EXPECT_EQ(arith_out[2 * k][i], want) << "scalar " << what;
        EXPECT_EQ(arith_out[2 * k + 1][i], want) << "vector " << what;
      }
    }
  }
  for (size_t k = 0; k < kComparisons.size(); ++k) {
    for (int i = 0; i < kBinaryOpElements; ++i) {
      uint8_t want = CompareRef(kComparisons[k], a[i], b[i]) ? 1 : 0;
      EXPECT_EQ(compare_out[2 * k][i], want) << "scalar " << te::BinOpSymbol(kComparisons[k]);
      EXPECT_EQ(compare_out[2 * k + 1][i], want) << "vector " << te::BinOpSymbol(kComparisons[k]);
    }
  }
}

// Floor division by constants (the index-arithmetic fast paths: powers of
// two, other positive constants) and by a negative constant.
template <class T>
class FloorByConstantTest : public ::testing::Test {};
using IntTypes = ::testing::Types<int8_t, int32_t, int64_t>;
TYPED_TEST_SUITE(FloorByConstantTest, IntTypes);

TYPED_TEST(FloorByConstantTest, NegativeDividendsScalarAndVector) {
  using T = TypeParam;
  DType t = DTypeOf<T>();
  te::Buffer A = Buf("A", {kBinaryOpElements}, t);
  std::vector<te::Buffer> args = {A};
  std::vector<Stmt> body;
  const std::vector<int64_t> divisors = {4, 3, 7, 1, -3};
  for (int64_t d : divisors) {
    for (BinOp op : {BinOp::kFloorDiv, BinOp::kFloorMod}) {
      te::Buffer s = Buf("s", {kBinaryOpElements}, t), v = Buf("v", {kBinaryOpElements}, t);
      args.push_back(s);
      args.push_back(v);
      Expr c = te::IntConst(d, t);
      body.push_back(Loop("i", kBinaryOpElements, [&](Expr i) { return St(s, i, te::MakeBinary(op, Ld(A, i), c)); }));
      body.push_back(Loop("j", kBinaryOpElements / kLanes, [&](Expr j) {
        Expr idx = Vec(j * kLanes, kLanes);
        return St(v, idx, te::MakeBinary(op, Ld(A, idx), Splat(c, kLanes)));
      }));
    }
  }
  std::vector<T> a = {-9, -8, -7, -5, -4, -3, -1, 0, 1, 3, 4, 5, 7, 8, 9, 100};
  std::vector<std::vector<T>> out(4 * divisors.size(), std::vector<T>(kBinaryOpElements));
  std::vector<void*> ptrs = {a.data()};
  for (auto& o : out) ptrs.push_back(o.data());
  absl::StatusOr<int32_t> rc = RunKernel(Func("floor_const", args, Seq(body)), ptrs);
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (size_t k = 0; k < divisors.size(); ++k) {
    T d = static_cast<T>(divisors[k]);
    for (int i = 0; i < kBinaryOpElements; ++i) {
      EXPECT_EQ(out[4 * k][i], FloorDivRef(a[i], d)) << a[i] << " // " << divisors[k];
      EXPECT_EQ(out[4 * k + 1][i], FloorDivRef(a[i], d)) << "vector " << a[i] << " // " << divisors[k];
      EXPECT_EQ(out[4 * k + 2][i], FloorModRef(a[i], d)) << a[i] << " %% " << divisors[k];
      EXPECT_EQ(out[4 * k + 3][i], FloorModRef(a[i], d)) << "vector " << a[i] << " %% " << divisors[k];
    }
  }
}

TEST(BinaryOpsTest, LogicalOperatorsOnBools) {
  te::Buffer P = Buf("P", {4}, DType::Bool()), Q = Buf("Q", {4}, DType::Bool());
  te::Buffer And = Buf("and", {4}, DType::Bool()), Or = Buf("or", {4}, DType::Bool());
  te::Buffer Not = Buf("not", {4}, DType::Bool()), VAnd = Buf("vand", {4}, DType::Bool());
  te::Buffer Lt = Buf("lt", {4}, DType::Bool());
  Stmt body = Seq({
      Loop("i", 4,
           [&](Expr i) {
             return Seq({St(And, i, te::LogicalAnd(Ld(P, i), Ld(Q, i))),
                         St(Or, i, te::LogicalOr(Ld(P, i), Ld(Q, i))),
                         St(Not, i, te::LogicalNot(Ld(P, i))),
                         St(Lt, i, Ld(P, i) < Ld(Q, i))});
           }),
      St(VAnd, Vec(0, 4), te::LogicalAnd(Ld(P, Vec(0, 4)), te::LogicalNot(Ld(Q, Vec(0, 4))))),
  });
  uint8_t p[4] = {0, 0, 1, 1}, q[4] = {0, 1, 0, 1};
  uint8_t and_[4], or_[4], not_[4], vand[4], lt[4];
  absl::StatusOr<int32_t> rc =
      RunKernel(Func("logic", {P, Q, And, Or, Not, VAnd, Lt}, body), {p, q, and_, or_, not_, vand, lt});
  ASSERT_TRUE(rc.ok()) << rc.status();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(and_[i], p[i] & q[i]);
    EXPECT_EQ(or_[i], p[i] | q[i]);
    EXPECT_EQ(not_[i], 1 - p[i]);
    EXPECT_EQ(vand[i], p[i] & (1 - q[i]));
    EXPECT_EQ(lt[i], p[i] < q[i] ? 1 : 0);
  }
}

}  // namespace
}  // namespace tuneforge::codegen::testing
