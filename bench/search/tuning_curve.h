// A tuning's curve: the job's best after each round, as its progress lines
// said it, and what the bench reads off it. The best on a line can fall: a
// candidate's first timing may be a lucky one that re-timing (the server's
// RetimeTop) corrects, and the job's best then becomes the store's. So the
// best at a trial count is the last line's, not the highest seen so far
// (that is the winner's curse of 1,000 noisy timings: a conv 3x3 tuning's
// highest line said 480 GFLOPS, the best its job offered at the end 407.6),
// and a level counts as reached where the curve stays at or above it.
#pragma once

#include <optional>
#include <vector>

namespace tuneforge::bench {

struct Point {
  int trials = 0;
  double gflops = 0;
  double seconds = 0;  // since the tuning started
};

// The job's best as it stood after `trials` trials (the last point at or
// before it; 0 before the first).
double BestBy(const std::vector<Point>& curve, int trials);

// The job's best as it stood `seconds` into the tuning.
double BestAt(const std::vector<Point>& curve, double seconds);

// The first point from which the curve never drops below `gflops` again;
// nullopt when its last point is below it.
std::optional<Point> FirstHolding(const std::vector<Point>& curve, double gflops);

}  // namespace tuneforge::bench
