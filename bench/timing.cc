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

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  const size_t at = std::min(values.size() - 1, static_cast<size_t>(q * static_cast<double>(values.size())));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

double Median(std::vector<double> values) { return Quantile(std::move(values), 0.5); }

}  // namespace tuneforge::bench
