// Semantic errors of the definition language, one test per class: each
// names the line and column and says what to do.
#include "common/te/workload.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tuneforge::te {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<Workload> w = ParseDefinition(text, "test");
  EXPECT_FALSE(w.ok()) << text;
  return w.ok() ? "" : std::string(w.status().message());
}

constexpr char kInputs[] = "input A: float32[4, 8]\ninput B: float32[8, 4]\n";

TEST(DefinitionErrorsTest, UnknownTensor) {
  EXPECT_EQ(ErrorOf(std::string(kInputs) + "C[i: 4, j: 4] = sum(A[i, k] * Q[k, j], k: 8)\n"),
            "line 3, column 31: unknown tensor 'Q'; declare it with 'input Q: float32[...]' or "
            "define it above this line");
}

TEST(DefinitionErrorsTest, WrongNumberOfIndices) {
  EXPECT_EQ(ErrorOf(std::string(kInputs) + "C[i: 4] = A[i]\n"),
            "line 3, column 11: 'A' has 2 dimensions, but 1 index was given; give one index per "
            "dimension");
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = A[i, 0, 1]\n"),
              HasSubstr("'A' has 2 dimensions, but 3 indices were given"));
}

TEST(DefinitionErrorsTest, Redefinition) {
  EXPECT_EQ(ErrorOf(std::string(kInputs) + "C[i: 4] = A[i, 0]\nC[i: 4] = A[i, 1]\nD[i: 4] = C[i]\n"),
            "line 4, column 1: redefinition of 'C' (first defined at line 3); pick another name");
  EXPECT_THAT(ErrorOf("let N = 4\nlet N = 5\n"),
              HasSubstr("line 2, column 1: redefinition of 'N' (first defined at line 1)"));
  EXPECT_THAT(ErrorOf("let A = 4\ninput A: float32[4]\n"), HasSubstr("redefinition of 'A'"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4, i: 8] = A[i, i]\n"),
              HasSubstr("line 3, column 9: redefinition of 'i': the axis has the name of an axis "
                        "already in scope here"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = sum(A[i, i], i: 8)\n"),
              HasSubstr("redefinition of 'i': the reduction axis has the name of an axis"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "let N = 2\nC[N: 4] = A[N, 0]\n"),
              HasSubstr("redefinition of 'N': the axis has the name of a let constant"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[A: 4] = 1.0\n"),
              HasSubstr("redefinition of 'A': the axis has the name of the tensor defined at line 1"));
}

TEST(DefinitionErrorsTest, ReadBeforeDefinition) {
  EXPECT_EQ(ErrorOf(std::string(kInputs) + "D[i: 4] = C[i] + 1.0\nC[i: 4] = A[i, 0]\n"),
            "line 3, column 11: 'C' is read before it is defined (at line 4); move its definition "
            "above this line");
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = select(i > 0, C[i - 1], A[i, 0])\n"),
              HasSubstr("'C' reads itself; a tensor cannot be computed from its own elements"));
}

TEST(DefinitionErrorsTest, UnknownFunction) {
  std::string e = ErrorOf(std::string(kInputs) + "C[i: 4] = softplus(A[i, 0])\n");
  EXPECT_THAT(e, HasSubstr("line 3, column 11: unknown function 'softplus'; known functions: exp, "
                           "log, sqrt, rsqrt, tanh, sigmoid, erf, abs, floor, ceil, round, pow, "
                           "select, min, max, sum, float32"));
}

TEST(DefinitionErrorsTest, WrongArity) {
  EXPECT_EQ(ErrorOf(std::string(kInputs) + "C[i: 4] = select(i > 1, A[i, 0])\n"),
            "line 3, column 11: 'select' takes 3 arguments, got 2");
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = exp(A[i, 0], 2.0)\n"),
              HasSubstr("'exp' takes 1 argument, got 2"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = max(A[i, 0])\n"),
              HasSubstr("'max' takes 2 arguments, got 1"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = sum(A[i, 0], A[i, 1], k: 2)\n"),
              HasSubstr("'sum' reduces one value, got 2 before the axes"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = sum(A[i, 0])\n"),
              HasSubstr("'sum' needs reduction axes: sum(value, k: extent)"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = exp(A[i, k], k: 8)\n"),
              HasSubstr("'exp' takes no reduction axes; only sum, max and min reduce"));
}

TEST(DefinitionErrorsTest, NestedReduction) {
  EXPECT_EQ(ErrorOf(std::string(kInputs) + "C[i: 4] = 2.0 * sum(A[i, k], k: 8)\n"),
            "line 3, column 17: reduction 'sum' must be the whole right-hand side of 'C', not "
            "nested inside an expression; compute it into its own tensor first");
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = sum(max(A[i, k], k: 8), j: 2)\n"),
              HasSubstr("reduction 'max' must be the whole right-hand side"));
  EXPECT_THAT(ErrorOf("let N = sum(1, k: 2)\n"), HasSubstr("cannot appear in a let or a shape"));
}

TEST(DefinitionErrorsTest, NonPositiveExtent) {
  EXPECT_EQ(ErrorOf("let N = 4\ninput A: float32[N - 4]\n"),
            "line 2, column 18: dimension 1 of 'A' is 0; extents must be positive");
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: -2] = 1.0\n"),
              HasSubstr("the extent of axis 'i' of 'C' is -2; extents must be positive"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = sum(A[i, k], k: 0)\n"),
              HasSubstr("the extent of reduction axis 'k' is 0"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = sum(A[i, k], k: i)\n"),
              HasSubstr("must be a constant (numbers and let names)"));
  EXPECT_THAT(ErrorOf("input A: float32[4294967296]\n"), HasSubstr("more than the limit"));
}

TEST(DefinitionErrorsTest, TypeMismatch) {
  EXPECT_EQ(ErrorOf(std::string(kInputs) + "C[i: 4] = A[i * 0.5, 0]\n"),
            "line 3, column 13: type mismatch: index 1 of 'A' must be an integer, got float32 "
            "(convert with int64(...), or use // for division)");
  EXPECT_THAT(ErrorOf("input A: float32[4]\ninput B: float64[4]\nC[i: 4] = A[i] + B[i]\n"),
              HasSubstr("line 3, column 16: type mismatch: the operands of '+' are float32 and "
                        "float64; convert one with float32(...) or float64(...)"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\ninput B: int32[4]\nC[i: 4] = A[i] * B[i]\n"),
              HasSubstr("the operands of '*' are float32 and int32"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = select(A[i], 1.0, 0.0)\n"),
              HasSubstr("the first argument of 'select' must be a condition (a comparison like i < 4), "
                        "got float32"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = A[i] + (i < 2)\n"),
              HasSubstr("'+' needs a number, got a condition (bool)"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = A[i] // 2.0\n"),
              HasSubstr("each operand of '//' (use / for floats) must be an integer, got float32"));
  EXPECT_THAT(ErrorOf("input A: int32[4]\nC[i: 4] = exp(A[i])\n"),
              HasSubstr("'exp' needs a float argument, got int32; convert it with float32(...)"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = A[i] > 0.0\n"),
              HasSubstr("'C' would hold conditions (bool)"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = sum(A[k], k: 4 where A[k])\n"),
              HasSubstr("the where condition must be a condition"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 2.5] = 1.0\n"),
              HasSubstr("type mismatch: the extent of axis 'i' of 'C' must be an integer, got 2.5"));
  EXPECT_THAT(ErrorOf("input A: float16[4]\nC[i: 4] = A[i]\n"),
              HasSubstr("line 1, column 10: unknown type 'float16' for input 'A'"));
}

TEST(DefinitionErrorsTest, UnknownOrMisusedName) {
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = A[i, j]\n"),
              HasSubstr("line 3, column 16: unknown name 'j'; use a let constant, an axis"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4, j: 8] = A + 1.0\n"),
              HasSubstr("'A' is a tensor; read an element with A[...]"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "let N = 2\nC[i: 4] = N[i]\n"),
              HasSubstr("'N' is a let constant, not a tensor"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = exp + 1.0\n"),
              HasSubstr("'exp' is a function; call it like exp(...)"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "let M = A[0, 0]\n"),
              HasSubstr("the value of 'M' must be a constant"));
}

TEST(DefinitionErrorsTest, OutputsAndUnusedTensors) {
  EXPECT_THAT(ErrorOf("input A: float32[4]\n"), HasSubstr("the definition computes nothing"));
  EXPECT_THAT(ErrorOf(std::string(kInputs) + "C[i: 4] = A[i, 0]\n"),
              HasSubstr("line 2, column 1: input 'B' is never read"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = A[i]\nD[i: 4] = C[i]\noutput C\n"),
              HasSubstr("line 4, column 8: 'C' is read by another tensor, so it cannot be an output"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = A[i]\nD[i: 4] = A[i]\noutput C\n"),
              HasSubstr("line 3, column 1: 'D' is computed but never used"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = A[i]\noutput A\n"),
              HasSubstr("input 'A' cannot be an output"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = A[i]\noutput E\n"),
              HasSubstr("unknown tensor 'E' on the output line"));
  EXPECT_THAT(ErrorOf("input A: float32[4]\nC[i: 4] = A[i]\noutput C, C\n"),
              HasSubstr("'C' is listed as an output twice"));
}

TEST(DefinitionErrorsTest, OutOfBoundsRead) {
  EXPECT_EQ(ErrorOf("input A: float32[8]\nC[i: 8] = A[i + 1]\n"),
            "line 2, column 1: 'C' reads A[(i + 1)] out of bounds: index 1 ranges over [1, 8] but "
            "'A' has extent 8 there (valid: 0 to 7); shrink the axes or guard the read with "
            "select(...)");
  // The guard decides: i >= 1 keeps i - 1 inside, i >= 0 does not.
  EXPECT_THAT(ErrorOf("input A: float32[8]\nC[i: 8] = select(i >= 0, A[i - 1], 0.0)\n"),
              HasSubstr("ranges over [-1, 6]"));
  EXPECT_THAT(ErrorOf("input A: float32[8]\nC[i: 8] = sum(A[i + k], k: 2 where k < 2)\n"),
              HasSubstr("index 1 ranges over [0, 8]"));
}

TEST(DefinitionErrorsTest, HostileSizesAreRefusedNotCrashedOn) {
  std::string deep = "input A: float32[4]\nC[i: 4] = " + std::string(100000, '(') + "A[i]" +
                     std::string(100000, ')') + "\n";
  EXPECT_THAT(ErrorOf(deep), HasSubstr("expression nested too deeply (more than 256 levels)"));
  std::string minus = "let N = " + std::string(100000, '-') + "1\n";
  EXPECT_THAT(ErrorOf(minus), HasSubstr("nested too deeply"));
  std::string chain = "input A: float32[4]\nC[i: 4] = A[i]";
  for (int k = 0; k < 100000; ++k) chain += " + A[i]";
  EXPECT_THAT(ErrorOf(chain + "\n"), HasSubstr("line 2, column 11: expression nested too deeply"));
  std::string many = "input A: float32[4]\n";
  for (int k = 0; k < 1001; ++k) absl::StrAppend(&many, "T", k, "[i: 4] = A[i]\n");
  EXPECT_THAT(ErrorOf(many), HasSubstr("more than 1000 tensors in one definition"));
}

TEST(DefinitionErrorsTest, DivisionByZeroInConstants) {
  EXPECT_THAT(ErrorOf("let N = 4 // 0\n"), HasSubstr("line 1, column 11: division by zero"));
}

}  // namespace
}  // namespace tuneforge::te
