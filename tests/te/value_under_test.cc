// ValueUnder: the constant an expression takes once some variables are
// constants (what unrolling decides each copy's conditions with).
#include "common/te/arith/value_under.h"

#include <gtest/gtest.h>

#include "common/te/buffer.h"

namespace tuneforge::te::arith {
namespace {

class ValueUnderTest : public ::testing::Test {
 protected:
  Var i = MakeVar("i"), j = MakeVar("j"), free = MakeVar("free");
  VarMap values{{i.get(), Expr(2)}, {j.get(), Expr(5)}};
  // A 2-entry constant matrix as the Winograd ops write one: a select chain
  // over both indices.
  Expr Matrix(const Expr& row, const Expr& col) {
    return MakeSelect(LogicalAnd(EQ(row, Expr(2)), EQ(col, Expr(5))), FloatConst(-4.0),
                      MakeSelect(LogicalAnd(EQ(row, Expr(1)), EQ(col, Expr(1))), FloatConst(3.0), FloatConst(0.0)));
  }
};

TEST_F(ValueUnderTest, ArithmeticAndComparisonsOfKnownVariables) {
  std::optional<Scalar> v = ValueUnder(FloorDiv(Expr(i) * 7 + Expr(j), Expr(4)), values);  // (14 + 5) // 4
  ASSERT_TRUE(v);
  EXPECT_EQ(v->i, 4);
  v = ValueUnder(Expr(i) < Expr(j), values);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->i, 1);
}

TEST_F(ValueUnderTest, ASelectChainOverKnownIndicesIsItsEntry) {
  std::optional<Scalar> v = ValueUnder(Matrix(Expr(i), Expr(j)), values);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->f, -4.0);
  v = ValueUnder(NE(Matrix(Expr(j), Expr(i)), FloatConst(0.0)), values);  // entry (5, 2) is 0
  ASSERT_TRUE(v);
  EXPECT_EQ(v->i, 0);
}

TEST_F(ValueUnderTest, AndOrDecidedByTheirKnownSideAlone) {
  // false && (anything): false, even over a variable with no value.
  std::optional<Scalar> v = ValueUnder(LogicalAnd(EQ(Expr(i), Expr(3)), EQ(Expr(free), Expr(0))), values);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->i, 0);
  v = ValueUnder(LogicalOr(EQ(Expr(i), Expr(2)), EQ(Expr(free), Expr(0))), values);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->i, 1);
  // true && unknown: unknown.
  EXPECT_FALSE(ValueUnder(LogicalAnd(EQ(Expr(i), Expr(2)), EQ(Expr(free), Expr(0))), values));
}

TEST_F(ValueUnderTest, UnknownVariablesReadsAndDivisionByZeroHaveNoValue) {
  EXPECT_FALSE(ValueUnder(Expr(free) + 1, values));
  EXPECT_FALSE(ValueUnder(FloorDiv(Expr(i), Expr(j) - 5), values));
  auto b = std::make_shared<BufferNode>();
  b->name = "b";
  b->dtype = DType::Float32();
  b->shape = {8};
  EXPECT_FALSE(ValueUnder(MakeBufferLoad(b, {Expr(i)}, DType::Float32()), values));
}

}  // namespace
}  // namespace tuneforge::te::arith
