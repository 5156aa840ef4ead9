#include "measure/timing.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace tuneforge::measure {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int64_t LastLevelCacheBytes() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    long v = sysconf(name);
    if (v > 0) return v;
  }
  return 32 << 20;
}

struct RunTimes {
  double kernel_s = 0;  // inside the kernel
  double wall_s = 0;    // flushes included
};

RunTimes TimeRuns(const std::function<int32_t()>& run, int64_t number, CacheFlusher* flusher,
                  int32_t* failed_code) {
  RunTimes t;
  auto wall_start = Clock::now();
  if (flusher == nullptr) {
    for (int64_t i = 0; i < number; ++i)
      if (int32_t code = run(); code != 0 && *failed_code == 0) *failed_code = code;
    t.kernel_s = t.wall_s = SecondsSince(wall_start);
    return t;
  }
  for (int64_t i = 0; i < number; ++i) {
    flusher->Flush();
    auto start = Clock::now();
    int32_t code = run();
    t.kernel_s += SecondsSince(start);
    if (code != 0 && *failed_code == 0) *failed_code = code;
  }
  t.wall_s = SecondsSince(wall_start);
  return t;
}

// A sink the optimizer must keep: the flush loop's reads go somewhere.
volatile uint64_t flush_sink = 0;

}  // namespace

CacheFlusher::CacheFlusher() {
  bytes_ = std::min<int64_t>(LastLevelCacheBytes() * 3 / 2, int64_t{512} << 20);
  bytes_ = (bytes_ + 63) / 64 * 64;
}

CacheFlusher::~CacheFlusher() { std::free(buffer_); }

bool CacheFlusher::Flush() {
  if (buffer_ == nullptr) {
    buffer_ = static_cast<uint64_t*>(std::aligned_alloc(64, static_cast<size_t>(bytes_)));
    if (buffer_ == nullptr) return false;
    std::fill(buffer_, buffer_ + bytes_ / 8, 0);
  }
  // Read-modify-write of every line: the kernel's data leaves the caches and
  // the evicting lines are dirty, as after unrelated work.
  uint64_t acc = 0;
  const int64_t words = bytes_ / 8;
  for (int64_t i = 0; i < words; i += 8) acc += ++buffer_[i];
  flush_sink = flush_sink + acc;
  return true;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

TimingResult TimeKernel(const std::function<int32_t()>& run, const TimingOptions& options,
                        CacheFlusher* flusher, const BehindBest& behind) {
  TimingResult result;
  int64_t number = std::max(1, options.number);
  const double min_repeat_s = std::max(0, options.min_repeat_ms) / 1000.0;
  // With a probe limit, calibration first aims at a pass of probe_s: a
  // candidate that pass puts behind the best needs no repeats.
  const double probe_s = behind.probe_above_s > 0 ? min_repeat_s * kProbeFraction : 0;
  bool probing = probe_s > 0;
  double timed = 0;
  auto finish = [&] {
    result.number = static_cast<int>(std::min<int64_t>(number, 1 << 30));
    result.median_seconds = Median(result.repeat_seconds);
    result.timed_ms = timed * 1000;
    return result;
  };
  // The calibration's last pass, when it lasted min_repeat_ms: a repeat
  // like any other (the kernel ran before it, so it is warm), so it is
  // reported rather than run again. It was a quarter of every
  // candidate's run time.
  std::optional<double> calibrated_repeat;
  if (min_repeat_s > 0) {
    // With flushing, a repeat's wall time (flushes included) decides: the
    // flushes dominate short kernels, and counting only kernel time would
    // demand thousands of flushes per repeat.
    for (;;) {
      RunTimes t = TimeRuns(run, number, flusher, &result.failed_code);
      timed += t.kernel_s;
      double measured = flusher ? t.wall_s : t.kernel_s;
      if (result.failed_code != 0) break;
      const double per_run_s = t.kernel_s / static_cast<double>(number);
      if (probing && measured >= probe_s) {
        probing = false;
        if (per_run_s > behind.probe_above_s) {
          result.repeat_seconds = {per_run_s};
          return finish();
        }
      }
      if (measured >= min_repeat_s) {
        calibrated_repeat = per_run_s;
        break;
      }
      // Aim 10% past the next target from the measured rate, at least
      // doubling when the run was too fast to measure.
      double rate = measured / static_cast<double>(number);
      double target_s = probing ? probe_s : min_repeat_s;
      double wanted = rate > 0 ? target_s * 1.1 / rate : static_cast<double>(number) * 10;
      int64_t grown = std::max<int64_t>(number * 2, static_cast<int64_t>(std::ceil(wanted)));
      if (grown > (int64_t{1} << 30)) break;  // an empty kernel: good enough
      number = std::min<int64_t>(grown, number * 100);
    }
  }
  if (calibrated_repeat) {
    result.repeat_seconds.push_back(*calibrated_repeat);
    if (behind.contend_above_s > 0 && *calibrated_repeat > behind.contend_above_s) return finish();
  }
  for (int r = calibrated_repeat ? 1 : 0; r < std::max(1, options.repeat) && result.failed_code == 0; ++r) {
    RunTimes t = TimeRuns(run, number, flusher, &result.failed_code);
    timed += t.kernel_s;
    result.repeat_seconds.push_back(t.kernel_s / static_cast<double>(number));
  }
  return finish();
}

double SlowVerdictSeconds(double check_s, double slow_above_s,
                          const std::function<std::optional<TimingResult>(const TimingOptions&)>& time_warm) {
  if (slow_above_s <= 0 || check_s <= slow_above_s || check_s >= kWarmVerdictBelowS) return check_s;
  TimingOptions warm;
  warm.number = 1;
  warm.repeat = kWarmVerdictWindows;
  warm.min_repeat_ms = kWarmVerdictMs;
  std::optional<TimingResult> t = time_warm(warm);
  if (!t || t->failed_code != 0 || t->repeat_seconds.empty()) return check_s;
  // The fastest window: one the core was taken from is not the kernel's time.
  const double fastest = *std::min_element(t->repeat_seconds.begin(), t->repeat_seconds.end());
  return fastest > 0 ? fastest : check_s;
}

}  // namespace tuneforge::measure
