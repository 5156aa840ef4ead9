#include "bench/timing.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "measure/timing.h"

namespace tuneforge::bench {

double TimeSeconds(const std::function<void()>& fn, const measure::TimingOptions& options) {
  fn();
  return measure::TimeKernel(
             [&] {
               fn();
               return 0;
             },
             options, /*flusher=*/nullptr)
      .median_seconds;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace tuneforge::bench
