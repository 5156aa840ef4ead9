// The arithmetic behind lowering: interval bounds, canonical sums and the
// simplifier's rewrites, each on expressions whose answer is known by hand.
#include <gtest/gtest.h>

#include "common/te/arith/interval.h"
#include "common/te/arith/simplify.h"
#include "common/te/arith/sum_form.h"
#include "common/te/expr_util.h"

namespace tuneforge::te::arith {
namespace {

class ArithTest : public ::testing::Test {
 protected:
  Var i = MakeVar("i"), j = MakeVar("j"), k = MakeVar("k");
  VarBounds bounds{{i.get(), {0, 7}}, {j.get(), {0, 15}}, {k.get(), {0, 3}}};
  std::string S(const Expr& e) { return ToString(Simplify(e, bounds)); }
};

TEST_F(ArithTest, ConstBoundsOfAffineAndDivMod) {
  auto b = ConstBounds(Expr(i) * 16 + j, bounds);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->lo, 0);
  EXPECT_EQ(b->hi, 127);
  b = ConstBounds(FloorDiv(Expr(i) * 16 + j, Expr(16)), bounds);
  EXPECT_EQ(b->lo, 0);
  EXPECT_EQ(b->hi, 7);
  b = ConstBounds(FloorMod(Expr(j) + 3, Expr(8)), bounds);  // spans periods
  EXPECT_EQ(b->lo, 0);
  EXPECT_EQ(b->hi, 7);
  b = ConstBounds(Expr(i) - Expr(j), bounds);
  EXPECT_EQ(b->lo, -15);
  EXPECT_EQ(b->hi, 7);
  EXPECT_FALSE(ConstBounds(Expr(MakeVar("unbounded")) + 1, bounds));
}

TEST_F(ArithTest, FloorDivModOfNegativeNumbers) {
  EXPECT_EQ(FloorDivInt(-7, 2), -4);
  EXPECT_EQ(FloorModInt(-7, 2), 1);
  EXPECT_EQ(FloorDivInt(7, -2), -4);
  EXPECT_EQ(FloorModInt(7, -2), -1);
}

TEST_F(ArithTest, ComparisonsDecidedByRanges) {
  auto b = ConstBounds(Expr(i) * 16 + j < Expr(128), bounds);
  EXPECT_TRUE(b && b->lo == 1 && b->hi == 1);
  b = ConstBounds(Expr(i) * 16 + j < Expr(100), bounds);
  EXPECT_TRUE(b && b->lo == 0 && b->hi == 1);
}

TEST_F(ArithTest, SumsCancelAndMerge) {
  EXPECT_EQ(S(Expr(i) * 32 + j - Expr(i) * 32), "j");
  EXPECT_EQ(S((Expr(i) + 1) * 4 - 4), "(i * 4)");
  EXPECT_EQ(S(Expr(j) + Expr(j) + Expr(j)), "(j * 3)");
  EXPECT_EQ(S(Expr(2) * 3 + 4), "10");
}

TEST_F(ArithTest, FusedIndexSplitsBack) {
  Expr fused = Expr(i) * 16 + j;  // fused i, j (j < 16)
  EXPECT_EQ(S(FloorDiv(fused, Expr(16))), "i");
  EXPECT_EQ(S(FloorMod(fused, Expr(16))), "j");
  // ... and recombining the parts gives the fused index back.
  Var f = MakeVar("f");
  VarBounds fb{{f.get(), {0, 127}}};
  EXPECT_EQ(ToString(Simplify(FloorDiv(Expr(f), Expr(16)) * 16 + FloorMod(Expr(f), Expr(16)), fb)), "f");
}

TEST_F(ArithTest, DivModKeepsWhatRangesCannotDecide) {
  // j + 3 crosses a multiple of 8: the division stays.
  EXPECT_EQ(S(FloorDiv(Expr(j) + 3, Expr(8))), "floordiv((j + 3), 8)");
  // The divisible part comes out: (i*8 + j) // 8 = i + j // 8.
  EXPECT_EQ(S(FloorDiv(Expr(i) * 8 + j, Expr(8))), "(i + floordiv(j, 8))");
  EXPECT_EQ(S(FloorMod(Expr(i) * 8 + j, Expr(8))), "floormod(j, 8)");
}

TEST_F(ArithTest, GuardsThatAlwaysHoldFold) {
  EXPECT_EQ(S(Expr(i) * 16 + j < Expr(128)), "true");
  EXPECT_EQ(S(Expr(k) >= Expr(0)), "true");
  EXPECT_EQ(S(LogicalAnd(Expr(k) < Expr(4), Expr(i) < Expr(5))), "(i < 5)");
  EXPECT_EQ(S(MakeSelect(Expr(k) < Expr(4), Expr(1.5f), Expr(2.5f))), "1.5");
}

TEST_F(ArithTest, MinMaxDecidedByRanges) {
  EXPECT_EQ(S(Min(Expr(k), Expr(10))), "k");
  EXPECT_EQ(S(Max(Expr(k), Expr(10))), "10");
  EXPECT_EQ(S(Min(Expr(k), Expr(2))), "min(k, 2)");
}

TEST_F(ArithTest, RampAlgebra) {
  Expr r = MakeRamp(Expr(0), 1, 16);
  EXPECT_EQ(S(r * 4 + Expr(i)), "ramp(i, 4, 16)");
  EXPECT_EQ(S(r + MakeRamp(Expr(j), 2, 16)), "ramp(j, 3, 16)");
  EXPECT_EQ(S(MakeRamp(Expr(i), 0, 8)), "x8(i)");
}

TEST_F(ArithTest, AVectorTestDecidedInEveryLaneIsAConstant) {
  // A stride-2 row of 28 lanes from column 2 (a padded conv's tap past the
  // left border): every lane is inside, so its padding test and the select
  // it guards go; the row from column 0 has one lane outside and keeps both.
  Expr inside = MakeRamp(Expr(2), 2, 28) >= MakeBroadcast(Expr(1), 28);
  Expr border = MakeRamp(Expr(0), 2, 28) >= MakeBroadcast(Expr(1), 28);
  EXPECT_EQ(S(inside), "x28(true)");
  EXPECT_EQ(S(border), "(ramp(0, 2, 28) >= x28(1))");
  // Over a variable's range too: i * 2 + lane * 2 <= 14 + 54 < 100.
  EXPECT_EQ(S(MakeRamp(Expr(i) * 2, 2, 28) < MakeBroadcast(Expr(100), 28)), "x28(true)");
  EXPECT_EQ(S(MakeRamp(Expr(i) * 2, 2, 28) >= MakeBroadcast(Expr(100), 28)), "x28(false)");
  Expr truth = MakeBroadcast(Expr(k) < Expr(4), 28);  // a scalar test that holds, per lane
  EXPECT_EQ(S(LogicalAnd(truth, border)), "(ramp(0, 2, 28) >= x28(1))");
  EXPECT_EQ(S(LogicalAnd(border, truth)), "(ramp(0, 2, 28) >= x28(1))");
  Expr row = MakeBroadcast(Expr(1.5f), 28), zero = MakeBroadcast(Expr(0.0f), 28);
  EXPECT_EQ(S(MakeSelect(LogicalAnd(truth, inside), row, zero)), "x28(1.5)");
  EXPECT_EQ(S(MakeSelect(MakeRamp(Expr(i), 1, 28) > MakeBroadcast(Expr(40), 28), row, zero)), "x28(0.0)");
  EXPECT_EQ(S(MakeSelect(border, row, zero)), "select((ramp(0, 2, 28) >= x28(1)), x28(1.5), x28(0.0))");
}

TEST_F(ArithTest, FloatConstantsFoldInTheirPrecision) {
  Expr third = Simplify(Expr(1.0f) / Expr(3.0f));
  ASSERT_TRUE(third.as<FloatImm>());
  EXPECT_EQ(third.as<FloatImm>()->value, static_cast<double>(1.0f / 3.0f));
  Var x = MakeVar("x", DType::Float32());
  EXPECT_EQ(ToString(Simplify(Expr(x) * 1.0f - 0.0f)), "x");
  // x + 0 is +0 where x is -0: not x.
  EXPECT_EQ(ToString(Simplify(Expr(x) * 1.0f + 0.0f)), "(x + 0.0)");
}

TEST_F(ArithTest, SumFormRoundTrip) {
  SumForm f = ToSumForm(Expr(i) * 3 - Expr(j) + 7);
  EXPECT_EQ(f.terms.size(), 2u);
  EXPECT_EQ(f.constant, 7);
  EXPECT_EQ(ToString(FromSumForm(f)), "(((i * 3) - j) + 7)");
  SumForm g = ToSumForm(Expr(7) - Expr(j) + Expr(i) * 3);
  EXPECT_TRUE(f.SameTerms(g));
}

}  // namespace
}  // namespace tuneforge::te::arith
