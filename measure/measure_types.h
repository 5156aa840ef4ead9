// The knobs of a measurement and what comes back for each candidate.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "measure/behind_best.h"
#include "measure/error_kind.h"

namespace tuneforge::measure {

// How one kernel is timed (TimeKernel in the runner, and the benchmark's
// peers): `repeat` repeats of `number` runs each; number grows until one
// repeat lasts at least min_repeat_ms. The median per-run time over the
// repeats is the result.
struct TimingOptions {
  int number = 1;
  int repeat = 3;
  int min_repeat_ms = 100;
  // Write a buffer larger than the last-level cache before each timed run
  // (cold-cache timing); flush time is not counted.
  bool flush_cache = false;
};

// The one definition of a measurement's knobs: the CLI flags, job specs
// (v1::MeasureOptions, measure_proto.h), the worker and the bench all fill
// this. The defaults here are the service's defaults.
struct MeasureOptions : TimingOptions {
  int threads = 0;        // parallel-loop threads in the runner; 0: all cores
  double timeout_s = 10;  // per candidate: check run + timing
  // The unscheduled reference runs once per workload and may be slow.
  double reference_timeout_s = 300;
  int build_jobs = 0;  // parallel compiles; 0: all cores
  // Address-space limit of the runner process (RLIMIT_AS / RLIMIT_DATA);
  // 0: three quarters of physical memory.
  int64_t memory_limit_mb = 0;
  // tuneforge-runner binary; empty: $TUNEFORGE_RUNNER, else next to the
  // current executable.
  std::string runner_path;
};

// The one result of measuring a candidate (v1::MeasureResult on the wire,
// measure_proto.h).
struct MeasureResult {
  MeasureErrorKind error_kind = MeasureErrorKind::kNone;
  std::string error;                   // empty when error_kind == kNone
  bool correct = false;                // outputs matched the reference
  double median_seconds = 0;           // per run
  std::vector<double> repeat_seconds;  // per-run time of each repeat
  int number = 0;                      // runs per repeat actually used
  double compile_ms = 0;               // replay + lower + compile
  double max_abs_error = 0;            // against the reference, over all outputs
  double max_rel_error = 0;
  // Diagnostics: wall time of the run phase as the caller saw it (request
  // sent -> reply read) and the part of it spent inside timed kernel runs;
  // the difference is the measurement overhead.
  double run_wall_ms = 0;
  double timed_ms = 0;

  bool ok() const { return error_kind == MeasureErrorKind::kNone; }

  // A result that is only this error (nothing was timed).
  static MeasureResult Failure(MeasureErrorKind kind, std::string error) {
    MeasureResult r;
    r.error_kind = kind;
    r.error = std::move(error);
    return r;
  }
};

}  // namespace tuneforge::measure
