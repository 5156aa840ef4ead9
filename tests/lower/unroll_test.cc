// The unroll pass on hand-built nests: nested unrolled loops become one copy
// per combination with every loop value in place, conditions the values
// decide keep only their taken branch, and a nest too large to copy stays a
// loop.
#include "common/lower/passes/unroll.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/lower/passes/simplify_stmt.h"
#include "common/lower/printer.h"
#include "common/lower/stmt_functor.h"

namespace tuneforge::lower {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Buffer Out(int64_t size) {
  auto b = std::make_shared<te::BufferNode>();
  b->name = "out";
  b->dtype = te::DType::Index();
  b->shape = {size};
  return b;
}

int64_t Stores(const Stmt& s) {
  int64_t n = 0;
  VisitStmts(s, [&](const Stmt& x) { n += x.as<Store>() != nullptr; });
  return n;
}

TEST(UnrollTest, NestedUnrolledLoopsCopyEachCombinationWithItsValues) {
  Var i = te::MakeVar("i"), j = te::MakeVar("j");
  Buffer out = Out(6);
  Stmt nest = MakeFor(i, 2, ForKind::kUnrolled,
                      MakeFor(j, 3, ForKind::kUnrolled,
                              MakeStore(out, {Expr(i) * 3 + Expr(j)}, Expr(i) * 10 + Expr(j))));
  Stmt unrolled = SimplifyStmt(Unroll(nest));
  EXPECT_EQ(Stores(unrolled), 6);
  const std::string text = ToString(unrolled);
  EXPECT_THAT(text, Not(HasSubstr("for")));
  EXPECT_THAT(text, HasSubstr("out[0] = 0"));
  EXPECT_THAT(text, HasSubstr("out[4] = 11"));
  EXPECT_THAT(text, HasSubstr("out[5] = 12"));
}

TEST(UnrollTest, ConditionsTheLoopValuesDecideKeepOnlyTheTakenBranch) {
  Var i = te::MakeVar("i");
  Buffer out = Out(4);
  // if (i == 1 || i == 3) out[i] = select(i == 3, 30, 10)
  Stmt nest = MakeFor(
      i, 4, ForKind::kUnrolled,
      MakeIf(te::LogicalOr(te::EQ(Expr(i), Expr(1)), te::EQ(Expr(i), Expr(3))),
             MakeStore(out, {Expr(i)}, te::MakeSelect(te::EQ(Expr(i), Expr(3)), Expr(30), Expr(10)))));
  // Straight out of the pass, before any simplification: two stores, no
  // test and no select left to fold.
  Stmt unrolled = Unroll(nest);
  EXPECT_EQ(Stores(unrolled), 2);
  const std::string text = ToString(unrolled);
  EXPECT_THAT(text, Not(HasSubstr("if")));
  EXPECT_THAT(text, Not(HasSubstr("select")));
  EXPECT_THAT(text, HasSubstr("out[1] = 10"));
  EXPECT_THAT(text, HasSubstr("out[3] = 30"));
}

TEST(UnrollTest, ANestTooLargeToCopyKeepsItsOuterLoop) {
  Var i = te::MakeVar("i"), j = te::MakeVar("j");
  Buffer out = Out(100 * 100);
  // 100 x 100 copies is past the limit; the inner 100 alone is not.
  Stmt nest = MakeFor(i, 100, ForKind::kUnrolled,
                      MakeFor(j, 100, ForKind::kUnrolled, MakeStore(out, {Expr(i) * 100 + Expr(j)}, Expr(j))));
  Stmt unrolled = Unroll(nest);
  const For* loop = unrolled.as<For>();
  ASSERT_NE(loop, nullptr) << ToString(unrolled);
  EXPECT_EQ(loop->kind, ForKind::kSerial);
  EXPECT_EQ(loop->extent, 100);
  EXPECT_EQ(Stores(unrolled), 100);
}

}  // namespace
}  // namespace tuneforge::lower
