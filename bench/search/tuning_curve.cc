#include "bench/search/tuning_curve.h"

namespace tuneforge::bench {

double BestBy(const std::vector<Point>& curve, int trials) {
  double best = 0;
  for (const Point& p : curve)
    if (p.trials <= trials) best = p.gflops;
  return best;
}

double BestAt(const std::vector<Point>& curve, double seconds) {
  double best = 0;
  for (const Point& p : curve)
    if (p.seconds <= seconds) best = p.gflops;
  return best;
}

std::optional<Point> FirstHolding(const std::vector<Point>& curve, double gflops) {
  std::optional<Point> from;
  for (const Point& p : curve) {
    if (p.gflops < gflops)
      from.reset();
    else if (!from)
      from = p;
  }
  return from;
}

}  // namespace tuneforge::bench
