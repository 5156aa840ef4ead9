// Welch's t-test, the one Droplet search moves on, and the special functions
// under it, against values known in closed form and from t tables.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "search/droplet/significance.h"

namespace tuneforge::search {
namespace {

TEST(SignificanceTest, IncompleteBetaMatchesItsClosedForms) {
  for (double x : {0.05, 0.3, 0.5, 0.77, 0.99}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(x, 1, 1), x, 1e-12);
    EXPECT_NEAR(RegularizedIncompleteBeta(x, 3, 1), std::pow(x, 3), 1e-12);
    EXPECT_NEAR(RegularizedIncompleteBeta(x, 1, 2.5), 1 - std::pow(1 - x, 2.5), 1e-12);
  }
  EXPECT_NEAR(RegularizedIncompleteBeta(0.5, 7.5, 7.5), 0.5, 1e-12);  // symmetric
  EXPECT_EQ(RegularizedIncompleteBeta(0, 2, 3), 0);
  EXPECT_EQ(RegularizedIncompleteBeta(1, 2, 3), 1);
}

TEST(SignificanceTest, StudentTailsMatchTheTables) {
  EXPECT_NEAR(StudentTUpperTail(0, 5), 0.5, 1e-12);
  EXPECT_NEAR(StudentTUpperTail(1, 1), 0.25, 1e-12);  // Cauchy: 1/2 - atan(1)/pi
  // One-tailed 5% and 1% critical values.
  EXPECT_NEAR(StudentTUpperTail(2.132, 4), 0.05, 5e-4);
  EXPECT_NEAR(StudentTUpperTail(1.812, 10), 0.05, 5e-4);
  EXPECT_NEAR(StudentTUpperTail(3.747, 4), 0.01, 1e-4);
  EXPECT_NEAR(StudentTUpperTail(-2.132, 4), 0.95, 5e-4);
  // Many degrees of freedom: the normal's 1.645.
  EXPECT_NEAR(StudentTUpperTail(1.645, 1e6), 0.05, 5e-4);
}

TEST(SignificanceTest, AClearlyFasterCandidateIsSignificantANoisyTieIsNot) {
  const std::vector<double> base = {1.00e-3, 1.01e-3, 0.99e-3};
  EXPECT_LT(WelchFasterPValue(base, {0.90e-3, 0.91e-3, 0.89e-3}), 1e-3);
  EXPECT_GT(WelchFasterPValue(base, {0.995e-3, 1.02e-3, 0.98e-3}), 0.05);
  EXPECT_GT(WelchFasterPValue(base, {1.10e-3, 1.11e-3, 1.09e-3}), 0.99);  // slower
  // Equal variances and sizes: Welch's t is Student's, dof 2(n-1) = 4.
  // t = 0.05 / sqrt(2 * 0.01^2 / 3) = 6.12 -> p = 0.0018.
  EXPECT_NEAR(WelchFasterPValue({1.00, 1.01, 0.99}, {0.95, 0.96, 0.94}), 0.0018, 2e-4);
}

TEST(SignificanceTest, TooFewRepeatsOrNoVarianceDecideWithoutATest) {
  EXPECT_EQ(WelchFasterPValue({1.0}, {0.5, 0.5}), 1);  // nothing to test with
  EXPECT_EQ(WelchFasterPValue({1.0, 1.0}, {0.5}), 1);
  EXPECT_EQ(WelchFasterPValue({}, {}), 1);
  EXPECT_EQ(WelchFasterPValue({1.0, 1.0}, {0.5, 0.5}), 0);
  EXPECT_EQ(WelchFasterPValue({1.0, 1.0}, {1.0, 1.0}), 1);
}

// Under the null hypothesis p-values are uniform: about 5% of ties between
// equally noisy samples come out below 0.05.
TEST(SignificanceTest, FalseWinsBetweenEqualSamplesHappenAtTheNominalRate) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(1.0, 0.05);
  int below = 0;
  const int trials = 4000;
  for (int i = 0; i < trials; ++i) {
    std::vector<double> a(5), b(5);
    for (double& x : a) x = noise(rng);
    for (double& x : b) x = noise(rng);
    below += WelchFasterPValue(a, b) <= 0.05;
  }
  EXPECT_NEAR(static_cast<double>(below) / trials, 0.05, 0.012);
}

}  // namespace
}  // namespace tuneforge::search
