// TUNEFORGE_PASS_TIMES: the optimizer's passes timed and printed at exit.
// The clock is set up from the environment, so each check runs in a fresh
// process (a threadsafe death test re-executes this binary for the test).
#include <cstdlib>

#include "gtest/gtest.h"
#include "tests/codegen/kernel_builder.h"

namespace tuneforge::codegen::testing {
namespace {

// Compiles a small loop and exits 0 (the table, if any, is printed then).
void CompileAndExit(bool with_variable) {
  if (with_variable) setenv("TUNEFORGE_PASS_TIMES", "1", 1);
  else unsetenv("TUNEFORGE_PASS_TIMES");
  te::Buffer A = Buf("A", {64}), B = Buf("B", {64});
  LoweredFunc f = Func("timed", {A, B}, Loop("i", 64, [&](Expr i) { return St(B, i, Ld(A, i) * 3.0f); }));
  std::exit(CompileToObject(f, Target::Host()).ok() ? 0 : 1);
}

TEST(PassClockTest, WithTheVariableEachPassIsTimedAndPrintedAtExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // InstCombine runs in every O3 pipeline; the table has a line for it.
  EXPECT_EXIT(CompileAndExit(true), ::testing::ExitedWithCode(0),
              "own time summed over this process(.|\n)*[0-9]+\\.[0-9]+ +[0-9.]+% +[0-9]+  InstCombinePass");
}

TEST(PassClockTest, WithoutItNothingIsPrinted) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(CompileAndExit(false), ::testing::ExitedWithCode(0), "^$");
}

}  // namespace
}  // namespace tuneforge::codegen::testing
