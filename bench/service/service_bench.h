// Service benchmarks through the real gRPC server on 127.0.0.1: simulated
// workers (threads with their own channels) register, lease and report
// results at once, so what is timed is the server: dispatch, validation,
// the record store's commits and the job manager's bookkeeping.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace tuneforge::bench {

struct ServiceIngestOptions {
  int workers = 100;
  int trials = 20'000;   // one job; every trial is one reported result
  int batch = 2048;      // candidates per round of the job
  int max_tasks = 8;     // per lease, as a small worker would ask
};

struct ServiceIngestFigures {
  int workers = 0;
  int64_t reported = 0;   // results the workers sent
  int64_t accepted = 0;   // the server's "new records stored now" answers
  int64_t updated = 0;    // re-timings the server applied (records updated, not new)
  int64_t stored = 0;     // records of the job in the store afterwards
  double seconds = 0;     // first lease to the job done
  double results_per_s = 0;
};

// A new server on a database in `dir` (removed afterwards). Fails when a
// reported result was not stored.
absl::StatusOr<ServiceIngestFigures> MeasureServiceIngest(const std::string& dir,
                                                          const ServiceIngestOptions& options = {});

struct DispatchOptions {
  int trials = 400;
  int batch = 64;
};

struct DispatchFigures {
  int tasks = 0;
  double ms_per_candidate = 0;       // one worker, one task per lease: wall / tasks
  double lease_ms_median = 0;        // a Lease call that returned a task
  double report_ms_median = 0;       // a Report call of one result (commit included)
};

// One simulated worker leasing one task at a time: the server's time per
// candidate when measuring costs nothing (candidate generation, dispatch,
// two calls, one commit).
absl::StatusOr<DispatchFigures> MeasureDispatchOverhead(const std::string& dir,
                                                        const DispatchOptions& options = {});

}  // namespace tuneforge::bench
