// The operator semantics table on the cases where languages and compilers
// differ: wrap-around, MIN / -1, division by zero, floor division of
// negatives, NaN and signed zeros in min/max, float32 rounding; and the
// simplifier and the definition language folding with it.
#include "common/te/op_semantics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/te/arith/simplify.h"
#include "common/te/expr_util.h"
#include "common/te/workload.h"

namespace tuneforge::te {
namespace {

std::optional<Scalar> IntOp(BinOp op, DType t, int64_t a, int64_t b) {
  return ApplyBinary(op, t, Scalar{a, 0}, Scalar{b, 0});
}
int64_t Int(BinOp op, DType t, int64_t a, int64_t b) {
  std::optional<Scalar> r = IntOp(op, t, a, b);
  EXPECT_TRUE(r) << BinOpSymbol(op) << " " << a << ", " << b;
  return r ? r->i : 0;
}
double Float(BinOp op, DType t, double a, double b) {
  std::optional<Scalar> r = ApplyBinary(op, t, Scalar{0, a}, Scalar{0, b});
  EXPECT_TRUE(r);
  return r ? r->f : 0;
}

TEST(OpSemanticsTest, IntegersWrapToTheirWidth) {
  EXPECT_EQ(Int(BinOp::kAdd, DType::Int8(), 127, 1), -128);
  EXPECT_EQ(Int(BinOp::kMul, DType::Int8(), 100, 2), -56);
  EXPECT_EQ(Int(BinOp::kAdd, DType::Int32(), INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(Int(BinOp::kSub, DType::Int64(), INT64_MIN, 1), INT64_MAX);
  EXPECT_EQ(Int(BinOp::kMul, DType::Int64(), INT64_MAX, 2), -2);
}

TEST(OpSemanticsTest, MinDividedByMinusOneWraps) {
  for (auto [t, min] :
       {std::pair{DType::Int8(), int64_t{-128}}, std::pair{DType::Int32(), int64_t{INT32_MIN}},
        std::pair{DType::Int64(), int64_t{INT64_MIN}}}) {
    EXPECT_EQ(Int(BinOp::kDiv, t, min, -1), min) << ToString(t);
    EXPECT_EQ(Int(BinOp::kFloorDiv, t, min, -1), min) << ToString(t);
    EXPECT_EQ(Int(BinOp::kMod, t, min, -1), 0) << ToString(t);
    EXPECT_EQ(Int(BinOp::kFloorMod, t, min, -1), 0) << ToString(t);
  }
}

TEST(OpSemanticsTest, IntegerDivisionByZeroHasNoValue) {
  for (BinOp op : {BinOp::kDiv, BinOp::kMod, BinOp::kFloorDiv, BinOp::kFloorMod})
    for (DType t : {DType::Bool(), DType::Int8(), DType::Int32(), DType::Int64()})
      EXPECT_FALSE(IntOp(op, t, 7, 0)) << BinOpSymbol(op) << " " << ToString(t);
  // Floats divide by zero as IEEE says.
  EXPECT_EQ(Float(BinOp::kDiv, DType::Float32(), 1, 0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(Float(BinOp::kDiv, DType::Float32(), -1, 0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(Float(BinOp::kDiv, DType::Float64(), 0, 0)));
  EXPECT_TRUE(std::isnan(Float(BinOp::kMod, DType::Float64(), 1, 0)));
}

TEST(OpSemanticsTest, TruncatingAndFloorDivisionOfNegatives) {
  const DType t = DType::Int32();
  EXPECT_EQ(Int(BinOp::kDiv, t, -7, 2), -3);
  EXPECT_EQ(Int(BinOp::kMod, t, -7, 2), -1);
  EXPECT_EQ(Int(BinOp::kFloorDiv, t, -7, 2), -4);
  EXPECT_EQ(Int(BinOp::kFloorMod, t, -7, 2), 1);
  EXPECT_EQ(Int(BinOp::kFloorDiv, t, 7, -2), -4);
  EXPECT_EQ(Int(BinOp::kFloorMod, t, 7, -2), -1);
  EXPECT_EQ(Int(BinOp::kFloorDiv, t, -7, -2), 3);
  EXPECT_EQ(Int(BinOp::kFloorMod, t, -7, -2), -1);
  EXPECT_EQ(Float(BinOp::kFloorDiv, DType::Float32(), -7, 2), -4);
  EXPECT_EQ(Float(BinOp::kFloorMod, DType::Float32(), -7, 2), 1);
  EXPECT_EQ(Float(BinOp::kMod, DType::Float32(), -7, 2), -1);
}

TEST(OpSemanticsTest, MinMaxAreStdMinMaxWithNanAndSignedZeros) {
  const double nan = std::nan("");
  const DType t = DType::Float32();
  // Equal or unordered operands give the first one.
  EXPECT_TRUE(std::isnan(Float(BinOp::kMin, t, nan, 1)));
  EXPECT_EQ(Float(BinOp::kMin, t, 1, nan), 1);
  EXPECT_TRUE(std::isnan(Float(BinOp::kMax, t, nan, 1)));
  EXPECT_EQ(Float(BinOp::kMax, t, 1, nan), 1);
  EXPECT_FALSE(std::signbit(Float(BinOp::kMin, t, 0.0, -0.0)));
  EXPECT_TRUE(std::signbit(Float(BinOp::kMin, t, -0.0, 0.0)));
  EXPECT_FALSE(std::signbit(Float(BinOp::kMax, t, 0.0, -0.0)));
  EXPECT_EQ(Int(BinOp::kMin, DType::Int64(), INT64_MIN, 3), INT64_MIN);
}

TEST(OpSemanticsTest, ComparisonsWithNan) {
  const double nan = std::nan("");
  for (BinOp op : {BinOp::kEQ, BinOp::kLT, BinOp::kLE, BinOp::kGT, BinOp::kGE})
    EXPECT_EQ(ApplyBinary(op, DType::Float64(), {0, nan}, {0, nan})->i, 0) << BinOpSymbol(op);
  EXPECT_EQ(ApplyBinary(BinOp::kNE, DType::Float64(), {0, nan}, {0, nan})->i, 1);
  EXPECT_EQ(BinaryResultType(BinOp::kLT, DType::Float32()), DType::Bool());
  // NaN is true for && and ||.
  EXPECT_EQ(ApplyBinary(BinOp::kAnd, DType::Float32(), {0, nan}, {0, 1})->i, 1);
}

TEST(OpSemanticsTest, Float32RoundsEveryResult) {
  EXPECT_EQ(Float(BinOp::kAdd, DType::Float32(), 1.0, 1e-8), 1.0);
  EXPECT_NE(Float(BinOp::kAdd, DType::Float64(), 1.0, 1e-8), 1.0);
  EXPECT_EQ(Float(BinOp::kMul, DType::Float32(), 3.4e38, 10),
            std::numeric_limits<double>::infinity());
  // int64 -> float32 rounds once (through double it would round twice).
  const int64_t n = (int64_t{1} << 40) + (int64_t{1} << 16) + 1;
  EXPECT_EQ(Convert({n, 0}, DType::Int64(), DType::Float32()).f,
            static_cast<double>(static_cast<float>(n)));
}

TEST(OpSemanticsTest, CastsSaturateNanToZeroAndWrap) {
  EXPECT_EQ(Convert({0, std::nan("")}, DType::Float32(), DType::Int32()).i, 0);
  EXPECT_EQ(Convert({0, 1e30}, DType::Float64(), DType::Int64()).i, INT64_MAX);
  EXPECT_EQ(Convert({300, 0}, DType::Int64(), DType::Int8()).i, 44);
  EXPECT_EQ(Convert({0, -0.5}, DType::Float32(), DType::Bool()).i, 1);
  // A constant node out of its type's range reads as the wrapped value.
  EXPECT_EQ(ConstantValue(IntConst(200, DType::Int8()))->i, -56);
}

Expr S(const Expr& e) { return arith::Simplify(e); }

TEST(OpSemanticsTest, SimplifierFoldsWithTheTable) {
  const DType i32 = DType::Int32(), i8 = DType::Int8();
  EXPECT_EQ(ToString(S(IntConst(INT32_MAX, i32) + IntConst(1, i32))),
            ToString(IntConst(INT32_MIN, i32)));
  EXPECT_EQ(*AsIntConst(S(IntConst(100, i8) * IntConst(2, i8) + IntConst(1, i8))), -55);
  EXPECT_EQ(*AsIntConst(S(FloorDiv(IntConst(INT64_MIN), IntConst(-1)))), INT64_MIN);
  EXPECT_EQ(*AsIntConst(S(MakeBinary(BinOp::kMod, IntConst(INT64_MIN), IntConst(-1)))), 0);
  // min(NaN, 1) is NaN and min(1, NaN) is 1, as compiled code computes them.
  Expr nan = FloatConst(std::nan(""), DType::Float32());
  EXPECT_TRUE(std::isnan(S(Min(nan, Expr(1.0f))).as<FloatImm>()->value));
  EXPECT_EQ(S(Min(Expr(1.0f), nan)).as<FloatImm>()->value, 1.0);
}

TEST(OpSemanticsTest, SimplifierLeavesWhatHasNoValue) {
  Var x = MakeVar("x");
  // Division by zero is not folded, nor dropped by x*0, x - x or min/max.
  Expr div0 = FloorDiv(Expr(7), Expr(0));
  EXPECT_FALSE(S(div0).as<IntImm>());
  EXPECT_FALSE(S(div0 * 0).as<IntImm>());
  EXPECT_FALSE(S(FloorDiv(Expr(x), Expr(0)) - FloorDiv(Expr(x), Expr(0))).as<IntImm>());
  EXPECT_FALSE(S(FloorMod(div0, Expr(1))).as<IntImm>());
  // The left operand of && runs first: "(7 // 0 == 1) && false" has no value.
  EXPECT_FALSE(S(LogicalAnd(EQ(div0, 1), IntConst(0, DType::Bool()))).as<IntImm>());
  EXPECT_EQ(ToString(S(LogicalAnd(IntConst(0, DType::Bool()), EQ(div0, 1)))), "false");
}

TEST(OpSemanticsTest, SimplifierKeepsSignedZeros) {
  Var x = MakeVar("x", DType::Float32());
  // x + 0 is +0 for x = -0, so it is not x; x - 0 and x + (-0) are.
  EXPECT_NE(ToString(S(Expr(x) + Expr(0.0f))), "x");
  EXPECT_EQ(ToString(S(Expr(x) - Expr(0.0f))), "x");
  EXPECT_EQ(ToString(S(Expr(x) + Expr(-0.0f))), "x");
  EXPECT_EQ(ToString(S(Expr(x) * Expr(1.0f))), "x");
}

TEST(OpSemanticsTest, NarrowIntegersAreNotSimplifiedAsIfUnbounded) {
  // (x * 4 + 1) // 4 is x for int64 indices, but x = 64 in int8 wraps x * 4 to 0.
  Var x = MakeVar("x", DType::Int8());
  const DType i8 = DType::Int8();
  Expr e = FloorDiv(Expr(x) * IntConst(4, i8) + IntConst(1, i8), IntConst(4, i8));
  EXPECT_NE(ToString(S(e)), "x");
  // Bounds that would wrap the type decide nothing: x + 1 > 0 is false at 127.
  Expr positive = Expr(x) + IntConst(1, i8) > IntConst(0, i8);
  arith::VarBounds bounds{{x.get(), {0, 127}}};
  EXPECT_FALSE(arith::Simplify(positive, bounds).as<IntImm>());
  arith::VarBounds small{{x.get(), {0, 100}}};
  Expr decided = arith::Simplify(positive, small);
  ASSERT_TRUE(AsIntConst(decided)) << ToString(decided);
  EXPECT_EQ(*AsIntConst(decided), 1);
}

TEST(OpSemanticsTest, DefinitionConstantsFoldWithTheTableAndRejectOverflow) {
  // This quotient used to be computed with C's `/`, which traps on it.
  absl::StatusOr<Workload> w =
      ParseDefinition("let N = (0 - 9223372036854775807 - 1) // -1\n", "minus_one");
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(std::string(w.status().message()), ::testing::HasSubstr("overflows 64-bit"));
}

}  // namespace
}  // namespace tuneforge::te
