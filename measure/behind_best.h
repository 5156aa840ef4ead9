// How much timing a candidate gets when it runs behind the best program of
// its workload so far. Ranking a candidate that is behind needs no
// precision, and timing every candidate in full (three repeats of
// min_repeat_ms) was most of a tuning's wall time. The server sets the
// limits from the job's best; a worker tightens them with the best it has
// timed itself (a job's first round has no best yet). Re-timings of the
// leaders carry no limits.
#pragma once

#include <algorithm>

namespace tuneforge::measure {

// Seconds per run (0: no limit).
struct BehindBest {
  // Its checked run alone is its measurement (no calibration, no repeats).
  double slow_above_s = 0;
  // Its probe, the calibration pass that lasts a quarter of min_repeat_ms,
  // is its one repeat (TimeKernel).
  double probe_above_s = 0;
  // Its first full repeat (min_repeat_ms long) is its one repeat.
  double contend_above_s = 0;
};

// A checked run over this many times the best: such candidates took most of
// a tuning's run time (a matmul 1024^3 tuning: 231 of 364 s of timing went
// to programs over 4x slower than the best). Cold check runs of near-best
// programs stay well inside 3x.
inline constexpr double kSlowCandidateFactor = 3;
// A probe over this many times the best. The probe (a quarter of
// min_repeat_ms) is as close to a candidate's median of three as its first
// full repeat: in a conv tuning, probe / median was 0.987-1.016 (10th-90th
// percentile, 133 candidates within 1.1x of the best); a 1.02x cut stopped
// 53 of them there and none that beat the best. A contender measured
// behind by noise can still be re-timed in full among the leaders.
inline constexpr double kProbeBehindFactor = 1.02;
// A first full repeat over this many times the best: only a candidate that
// may beat the best is timed in full. In a 1,000-trial matmul 1024^3
// tuning timed in full up to 1.1x, 559 of the 936 candidates after the
// first round got three repeats; the first repeat lies within 2 % of a
// candidate's median of three in 80 % of cases, and the fastest few of a
// job timed once are re-timed in full after each round, so a contender
// that noise put behind is timed again.
inline constexpr double kContendBehindFactor = 1.01;

// A candidate whose checked run is still going at kStopBehindFactor times
// the best is stopped there and recorded as a timeout (the search learns it
// as a failure), where that time is at least kWatchedStopS: the runner then
// measures it in a watched child (watched_child.h), because a fork and the
// child's thread pool cost 3-8 ms. Not at kSlowCandidateFactor: stopped at
// 3x, every candidate of a 1,000-trial matmul tuning after its lucky first
// one was stopped (a first round's random programs run 4-400x the best),
// and with no times to learn from the search never left its first round.
// Below 10x they keep their one time to learn from.
inline constexpr double kStopBehindFactor = 10;
inline constexpr double kWatchedStopS = 0.05;

// When a candidate behind a best of slow_above_s / kSlowCandidateFactor is
// stopped (0: never); the runner gets the best as `slow_above_s`.
inline double StopAfterSeconds(double slow_above_s) {
  const double stop_s = slow_above_s / kSlowCandidateFactor * kStopBehindFactor;
  return stop_s >= kWatchedStopS ? stop_s : 0;
}

// The limits behind a best of `best_seconds` per run (none when it is not
// positive).
inline BehindBest BehindBestOf(double best_seconds) {
  if (!(best_seconds > 0)) return {};
  return {.slow_above_s = kSlowCandidateFactor * best_seconds,
          .probe_above_s = kProbeBehindFactor * best_seconds,
          .contend_above_s = kContendBehindFactor * best_seconds};
}

// Each limit the lower of the two (0, no limit, loses to any).
inline BehindBest Tighter(const BehindBest& a, const BehindBest& b) {
  auto lower = [](double x, double y) { return x > 0 && y > 0 ? std::min(x, y) : std::max(x, y); };
  return {.slow_above_s = lower(a.slow_above_s, b.slow_above_s),
          .probe_above_s = lower(a.probe_above_s, b.probe_above_s),
          .contend_above_s = lower(a.contend_above_s, b.contend_above_s)};
}

}  // namespace tuneforge::measure
