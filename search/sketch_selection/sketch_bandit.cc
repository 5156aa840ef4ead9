#include "search/sketch_selection/sketch_bandit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tuneforge::search {

SketchBandit::SketchBandit(int num_sketches, double exploration)
    : arms_(static_cast<size_t>(std::max(0, num_sketches))), exploration_(exploration) {}

void SketchBandit::Record(int sketch, double throughput) {
  if (sketch < 0 || sketch >= num_sketches()) return;
  Arm& arm = arms_[sketch];
  ++arm.measured;
  if (throughput > arm.best) arm.best = throughput;
}

void SketchBandit::Exclude(int sketch) {
  if (sketch >= 0 && sketch < num_sketches()) arms_[sketch].excluded = true;
}

std::vector<int> SketchBandit::Allocate(int slots) const {
  std::vector<int> given(arms_.size(), 0);
  double leader = 0;
  int64_t total = 0;
  for (const Arm& arm : arms_) {
    leader = std::max(leader, arm.best);
    total += arm.measured;
  }
  // Slots handed out count as measurements already, so one round spreads
  // the way successive rounds of one slot each would.
  for (int slot = 0; slot < slots; ++slot) {
    int pick = -1;
    double pick_bound = -std::numeric_limits<double>::infinity();
    const double log_total = std::log(static_cast<double>(total + slot + 1));
    for (size_t s = 0; s < arms_.size(); ++s) {
      const Arm& arm = arms_[s];
      if (arm.excluded) continue;
      const double n = static_cast<double>(arm.measured + given[s]);
      const double value = leader > 0 ? arm.best / leader : 0;
      const double bound = n == 0 ? std::numeric_limits<double>::infinity()
                                  : value + exploration_ * std::sqrt(log_total / n);
      if (bound > pick_bound) {
        pick = static_cast<int>(s);
        pick_bound = bound;
      }
    }
    if (pick < 0) break;
    ++given[pick];
  }
  return given;
}

}  // namespace tuneforge::search
