// Whether a candidate's repeated timings are faster than the current best's
// by more than noise: Welch's t-test (unequal variances), one-sided. Droplet
// search moves only on a significant win, so a lucky repeat on a shared
// machine does not walk the search.
#pragma once

#include <vector>

namespace tuneforge::search {

// The p-value of "candidate's mean time < baseline's mean time" under
// Welch's t-test on the two samples of per-run seconds. 1 when either
// sample has fewer than two values (no variance to test against); with no
// variance on either side, 0 when the candidate's mean is lower, else 1.
double WelchFasterPValue(const std::vector<double>& baseline, const std::vector<double>& candidate);

// Student's t distribution: P(T >= t) with `dof` degrees of freedom (> 0).
double StudentTUpperTail(double t, double dof);

// The regularized incomplete beta function I_x(a, b), 0 <= x <= 1, a, b > 0.
double RegularizedIncompleteBeta(double x, double a, double b);

}  // namespace tuneforge::search
