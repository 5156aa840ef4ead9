// Timing a kernel in the runner: repeat / number / min_repeat_ms, optional
// cache flushing, median of the repeats.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "measure/measure_types.h"

namespace tuneforge::measure {

struct TimingResult {
  int number = 0;                      // runs per repeat after calibration
  std::vector<double> repeat_seconds;  // mean per-run time of each repeat
  double median_seconds = 0;
  double timed_ms = 0;      // in kernel runs, calibration included
  int32_t failed_code = 0;  // first non-zero kernel return, 0 if none
};

// Evicts the last-level cache by writing a buffer larger than it.
class CacheFlusher {
 public:
  // Sized from the LLC the OS reports (1.5x, capped at 512 MiB).
  CacheFlusher();
  ~CacheFlusher();
  // False when the buffer cannot be allocated (memory limit).
  bool Flush();
  int64_t bytes() const { return bytes_; }

 private:
  int64_t bytes_ = 0;
  uint64_t* buffer_ = nullptr;
};

// `run` executes the kernel once and returns its status code. Calibration:
// starting from options.number, the run count grows until one repeat lasts
// min_repeat_ms; the shorter calibration passes double as warm-up and are
// not reported, the pass that lasted min_repeat_ms is the first repeat (the
// caller has run the kernel before: the runner's correctness check). With
// flush_cache, each run is timed alone after a flush, and calibration
// counts the flushes toward min_repeat_ms (see timing.cc).
//
// behind.probe_above_s (> 0, seconds per run):
// calibration first aims at a probe pass of kProbeFraction x min_repeat_ms;
// when the probe runs slower than that, it is the one repeat reported. Most
// candidates of a search that has found a good program are behind it, and
// three full repeats each were most of a tuning's wall time; a contender
// pays the probe on top of its repeats.
//
// behind.contend_above_s (> 0, seconds per run): when the first full
// repeat runs slower than that, it is the one repeat reported.
inline constexpr double kProbeFraction = 0.25;
TimingResult TimeKernel(const std::function<int32_t()>& run, const TimingOptions& options,
                        CacheFlusher* flusher, const BehindBest& behind = {});

double Median(std::vector<double> values);

// A candidate slower than `slow_above_s` (> 0; the job's best times a
// factor) is ranked by one time instead of full repeats. The check run is
// the kernel's first: its code pages, caches and sleeping pool threads make
// a short kernel take several times its warm time, so judged by it every
// 50-us candidate looked slow and none after the first few was timed in
// full (a search that stalled at its first best). Returns the time to judge
// by: check_s, or, for a kernel under kWarmVerdictBelowS that looks slow by
// it, its warm per-run time: the fastest of kWarmVerdictWindows windows of
// kWarmVerdictMs each, so that a window the scheduler took the core from
// (a shared machine) does not judge it (time_warm runs it; check_s when
// that fails). A longer kernel's check run is close to its warm time, and
// another run would cost what the verdict saves.
inline constexpr double kWarmVerdictBelowS = 0.02;
inline constexpr int kWarmVerdictMs = 1;
inline constexpr int kWarmVerdictWindows = 3;
double SlowVerdictSeconds(double check_s, double slow_above_s,
                          const std::function<std::optional<TimingResult>(const TimingOptions&)>& time_warm);

}  // namespace tuneforge::measure
