#include "bench/timing.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace tuneforge::bench {

double TimeSeconds(const std::function<void()>& fn, const TimingOptions& options) {
  using Clock = std::chrono::steady_clock;
  fn();
  int number = 1;
  for (;;) {
    auto t0 = Clock::now();
    for (int i = 0; i < number; ++i) fn();
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (ms >= options.min_repeat_ms || number >= (1 << 20)) break;
    // Aim a little past the minimum so the next try usually suffices.
    double scale = ms > 0 ? options.min_repeat_ms * 1.2 / ms : 10;
    number = std::max(number + 1, static_cast<int>(number * std::min(scale, 10.0)));
  }
  std::vector<double> per_call;
  for (int r = 0; r < options.repeat; ++r) {
    auto t0 = Clock::now();
    for (int i = 0; i < number; ++i) fn();
    per_call.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / number);
  }
  return Median(std::move(per_call));
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace tuneforge::bench
