#include "search/droplet/significance.h"

#include <cmath>
#include <numeric>

namespace tuneforge::search {
namespace {

struct Moments {
  double mean = 0;
  double variance = 0;  // unbiased (n - 1)
  double n = 0;
};

Moments Of(const std::vector<double>& xs) {
  Moments m;
  m.n = static_cast<double>(xs.size());
  if (xs.empty()) return m;
  m.mean = std::accumulate(xs.begin(), xs.end(), 0.0) / m.n;
  if (xs.size() < 2) return m;
  double ss = 0;
  for (double x : xs) ss += (x - m.mean) * (x - m.mean);
  m.variance = ss / (m.n - 1);
  return m;
}

// The continued fraction of I_x(a, b) (modified Lentz), which converges
// fast for x < (a + 1) / (a + b + 2).
double BetaContinuedFraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-14;
  double c = 1;
  double d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m <= 300; ++m) {
    // Even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)).
    double num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + num * d;
    c = 1 + num / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    f *= d * c;
    // Odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
    num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + num * d;
    c = 1 + num / c;
    if (std::fabs(d) < kTiny) d = kTiny;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    f *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  return f;
}

}  // namespace

double RegularizedIncompleteBeta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  // x^a (1-x)^b / (a B(a, b)), in logs.
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(x, a, b) / a;
  return 1 - front * BetaContinuedFraction(1 - x, b, a) / b;  // the symmetry I_x(a,b) = 1 - I_{1-x}(b,a)
}

double StudentTUpperTail(double t, double dof) {
  // P(|T| >= |t|) = I_{dof / (dof + t^2)}(dof / 2, 1 / 2); halve it for one tail.
  const double two_tailed = RegularizedIncompleteBeta(dof / (dof + t * t), dof / 2, 0.5);
  return t >= 0 ? two_tailed / 2 : 1 - two_tailed / 2;
}

double WelchFasterPValue(const std::vector<double>& baseline, const std::vector<double>& candidate) {
  if (baseline.size() < 2 || candidate.size() < 2) return 1;
  const Moments b = Of(baseline);
  const Moments c = Of(candidate);
  const double vb = b.variance / b.n;
  const double vc = c.variance / c.n;
  if (vb + vc <= 0) return c.mean < b.mean ? 0 : 1;
  const double t = (b.mean - c.mean) / std::sqrt(vb + vc);
  // Welch-Satterthwaite degrees of freedom.
  const double dof = (vb + vc) * (vb + vc) / (vb * vb / (b.n - 1) + vc * vc / (c.n - 1));
  return StudentTUpperTail(t, dof);
}

}  // namespace tuneforge::search
