// Syntax of the definition language: what parses, and the line/column
// errors for what does not.
#include "common/te/definition/parser.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tuneforge::te::definition {
namespace {

using ::testing::HasSubstr;

std::string SyntaxError(const std::string& text) {
  absl::StatusOr<Program> p = Parse(text);
  EXPECT_FALSE(p.ok()) << text;
  return p.ok() ? "" : std::string(p.status().message());
}

TEST(DefinitionParseTest, ReadsEveryStatementKind) {
  absl::StatusOr<Program> p = Parse(R"(
# a comment line
let N = 4   # trailing comment
input A: float32[N, 8]
B[i: N, j: 8] = A[i, j] * 2.0
output B
)");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->statements.size(), 4u);
  EXPECT_TRUE(std::holds_alternative<LetStmt>(p->statements[0].v));
  EXPECT_TRUE(std::holds_alternative<InputStmt>(p->statements[1].v));
  const auto& compute = std::get<ComputeStmt>(p->statements[2].v);
  EXPECT_EQ(compute.name, "B");
  ASSERT_EQ(compute.axes.size(), 2u);
  EXPECT_EQ(compute.axes[1].name, "j");
  EXPECT_EQ(p->statements[2].pos.line, 5);
  EXPECT_EQ(p->statements[2].pos.column, 1);
  EXPECT_TRUE(std::holds_alternative<OutputStmt>(p->statements[3].v));
}

TEST(DefinitionParseTest, PrecedenceFollowsC) {
  absl::StatusOr<Program> p = Parse("X[i: 4] = 1 + 2 * 3 - -4 // 2\n");
  ASSERT_TRUE(p.ok()) << p.status();
  const Node& body = *std::get<ComputeStmt>(p->statements[0].v).body;
  // ((1 + (2 * 3)) - ((-4) // 2))
  const auto& top = std::get<BinaryNode>(body.v);
  EXPECT_EQ(top.op, "-");
  EXPECT_EQ(std::get<BinaryNode>(top.lhs->v).op, "+");
  EXPECT_EQ(std::get<BinaryNode>(top.rhs->v).op, "//");
  absl::StatusOr<Program> q = Parse("X[i: 4] = select(i < 1 || i > 2 && i != 3, 1.0, 0.0)\n");
  ASSERT_TRUE(q.ok()) << q.status();
  const auto& call = std::get<CallNode>(std::get<ComputeStmt>(q->statements[0].v).body->v);
  EXPECT_EQ(std::get<BinaryNode>(call.args[0]->v).op, "||");  // && binds tighter
}

TEST(DefinitionParseTest, ReductionAxesAndWhere) {
  absl::StatusOr<Program> p = Parse("M[i: 4] = max(A[i, j], j: 8, k: 2 where j % 2 == 0)\n");
  ASSERT_TRUE(p.ok()) << p.status();
  const auto& call = std::get<CallNode>(std::get<ComputeStmt>(p->statements[0].v).body->v);
  EXPECT_EQ(call.fn, "max");
  EXPECT_EQ(call.args.size(), 1u);
  ASSERT_EQ(call.axes.size(), 2u);
  EXPECT_EQ(call.axes[0].name, "j");
  ASSERT_NE(call.where, nullptr);
}

TEST(DefinitionParseTest, StatementsContinueInsideBrackets) {
  absl::StatusOr<Program> p = Parse("C[i: 4,\n  j: 4] = sum(\n  A[i, k] *\n  B[k, j],\n  k: 4)\nD[i: 1] = 1.0\n");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->statements.size(), 2u);
}

TEST(DefinitionParseTest, MissingBracketNamesLineColumnAndToken) {
  EXPECT_EQ(SyntaxError("input A: float32[4, 4]\nC[i: 4, j: 4] = A[i j]\n"),
            "line 2, column 21: expected ']' after the indices of 'A', found name 'j'");
  // A line end inside [ ] continues the statement, so the file ends first.
  EXPECT_EQ(SyntaxError("C[i: 4] = A[i, 2\n"),
            "line 2, column 1: expected ']' after the indices of 'A', found end of file");
}

TEST(DefinitionParseTest, ExpectedTokens) {
  EXPECT_THAT(SyntaxError("input A float32[4]\n"),
              HasSubstr("line 1, column 9: expected ':' and a type after 'input A'"));
  EXPECT_THAT(SyntaxError("C[i, j] = 1.0\n"),
              HasSubstr("line 1, column 4: expected ':' and an extent after axis 'i' of 'C'"));
  EXPECT_THAT(SyntaxError("C = 1.0\n"), HasSubstr("line 1, column 3: expected '[' and the axes after 'C'"));
  EXPECT_THAT(SyntaxError("C[i: 4] 1.0\n"), HasSubstr("expected '=' after the axes of 'C', found number 1.0"));
  EXPECT_THAT(SyntaxError("C[i: 4] = (1.0 + 2.0\n"),
              HasSubstr("expected ')' to close the '(' at line 1, column 11, found end of file"));
  EXPECT_THAT(SyntaxError("C[i: 4] = 1.0 2.0\n"),
              HasSubstr("line 1, column 15: expected end of line after the statement, found number 2.0"));
  EXPECT_THAT(SyntaxError("C[i: 4] = * 2\n"),
              HasSubstr("line 1, column 11: expected an expression (a number, a name, A[...] or "
                        "f(...)), found '*'"));
  EXPECT_THAT(SyntaxError("= 3\n"), HasSubstr("expected a statement (let, input, output or NAME[axes] "
                                              "= expression), found '='"));
  EXPECT_THAT(SyntaxError("let = 3\n"), HasSubstr("expected a name after 'let'"));
  EXPECT_THAT(SyntaxError("C[i: 4] = A[]\n"), HasSubstr("'A[]' has no indices"));
}

TEST(DefinitionParseTest, ReductionSyntaxErrors) {
  EXPECT_THAT(SyntaxError("C[i: 4] = sum(A[i, k], k: 4, where k < 2)\n"),
              HasSubstr("write 'where' right after the last axis, without a comma"));
  EXPECT_THAT(SyntaxError("C[i: 4] = sum(A[i, k], k: 4, A[i, k])\n"),
              HasSubstr("expected another reduction axis (name: extent) or ')' after the axes of 'sum'"));
  EXPECT_THAT(SyntaxError("C[i: 4] = sum(A[i, k], k: 4 where k < 2, 3)\n"),
              HasSubstr("expected ')' after the where condition of 'sum', found ','"));
}

TEST(DefinitionParseTest, LexicalErrors) {
  EXPECT_EQ(SyntaxError("let N = 4\nC[i: N] = $\n"), "line 2, column 11: unexpected character '$'");
  EXPECT_THAT(SyntaxError("C[i: 4] = select(i > 1 & i < 3, 1.0, 0.0)\n"),
              HasSubstr("line 1, column 24: unexpected character '&'; did you mean '&&'?"));
  EXPECT_THAT(SyntaxError("C[i: 4] = .5\n"), HasSubstr("write decimals with a leading digit"));
  EXPECT_THAT(SyntaxError("let N = 123456789012345678901234\n"), HasSubstr("is too large"));
  EXPECT_THAT(SyntaxError("let N = 4 \xc3\xa9\n"), HasSubstr("unexpected byte 0xc3"));
}

TEST(DefinitionParseTest, ComparisonsDoNotChain) {
  EXPECT_THAT(SyntaxError("C[i: 4] = select(0 <= i < 3, 1.0, 0.0)\n"),
              HasSubstr("comparisons do not chain; write a <= b && b < c instead"));
}

}  // namespace
}  // namespace tuneforge::te::definition
