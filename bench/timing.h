// Timing for benchmark peers with the runner's own method and code
// (measure::TimeKernel): grow the number of calls per repeat until a repeat
// lasts at least min_repeat_ms, take `repeat` repeats, report the median per
// call.
#pragma once

#include <functional>
#include <vector>

#include "measure/measure_types.h"

namespace tuneforge::bench {

// Peers are timed a little longer than our kernels' default.
inline constexpr measure::TimingOptions kPeerTiming{
    .number = 1, .repeat = 5, .min_repeat_ms = 200, .flush_cache = false};

// Seconds per call of fn (median over repeats). fn is called once first to
// warm caches and lazy initialisation.
double TimeSeconds(const std::function<void()>& fn, const measure::TimingOptions& options = kPeerTiming);

// The value at fraction q (0-1) of the sorted values: the element at index
// q * count, the last for q = 1; 0 for none.
double Quantile(std::vector<double> values, double q);
// The middle value (the upper one of an even count); 0 for none.
double Median(std::vector<double> values);

}  // namespace tuneforge::bench
