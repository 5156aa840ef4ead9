// Build deadlines per workload. A candidate whose compile takes many times
// the workload's typical compile is almost never a fast kernel, yet it holds
// one of the worker's build processes for all that time while the round
// waits: in five 1,000-trial tunings of a 3x3 conv (p50 compile 0.2-0.35 s),
// the builds past 2 s ran at 3-48 GFLOPS beside bests of 146-168, and one
// took 25 s. Once a workload has kMinCompilesForDeadline built candidates,
// its tasks carry a deadline of kBuildDeadlineFactor times the median
// compile, at least kMinBuildDeadlineS; the worker kills a build past it
// (compile_error), and the search learns that program as a failure.
#pragma once

#include <cstddef>
#include <deque>

namespace tuneforge::server {

inline constexpr int kMinCompilesForDeadline = 32;
inline constexpr double kBuildDeadlineFactor = 10;
inline constexpr double kMinBuildDeadlineS = 2;

class CompileTimes {
 public:
  // A candidate that built (its compile time, ms).
  void Add(double compile_ms);
  // The deadline for the workload's next candidates; 0 (the worker's own
  // build timeout) until kMinCompilesForDeadline compiles are known.
  double DeadlineSeconds() const;

 private:
  static constexpr std::size_t kKept = 256;  // the latest: a search moves on
  std::deque<double> recent_ms_;
};

}  // namespace tuneforge::server
