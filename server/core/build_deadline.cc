#include "server/core/build_deadline.h"

#include <algorithm>
#include <vector>

namespace tuneforge::server {

void CompileTimes::Add(double compile_ms) {
  if (!(compile_ms > 0)) return;
  recent_ms_.push_back(compile_ms);
  if (recent_ms_.size() > kKept) recent_ms_.pop_front();
}

double CompileTimes::DeadlineSeconds() const {
  if (recent_ms_.size() < static_cast<size_t>(kMinCompilesForDeadline)) return 0;
  std::vector<double> sorted(recent_ms_.begin(), recent_ms_.end());
  auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  return std::max(kMinBuildDeadlineS, kBuildDeadlineFactor * *middle / 1e3);
}

}  // namespace tuneforge::server
