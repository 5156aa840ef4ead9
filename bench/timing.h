// Timing for benchmark peers, with the method the runner uses for our own
// kernels: grow the number of calls per repeat until a repeat lasts at
// least min_repeat_ms, take `repeat` repeats, report the median per call.
#pragma once

#include <functional>
#include <vector>

namespace tuneforge::bench {

struct TimingOptions {
  int repeat = 5;
  double min_repeat_ms = 200;
};

// Seconds per call of fn (median over repeats). fn is called once first to
// warm caches and lazy initialisation.
double TimeSeconds(const std::function<void()>& fn, const TimingOptions& options = {});

// The middle value (the upper one of an even count); 0 for none.
double Median(std::vector<double> values);

}  // namespace tuneforge::bench
