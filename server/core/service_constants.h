// The server's timing and sizing constants in one place: the defaults of
// DispatcherOptions, how long a lease may run, how long a lost worker stays
// listed, the job defaults. Each says why it has its value.
#pragma once

#include <cstdint>

#include "absl/time/time.h"

namespace tuneforge::server {

// ---- Workers ----------------------------------------------------------------
// How often a worker is asked to heartbeat (told at registration).
inline constexpr int kHeartbeatIntervalMs = 2000;
// A worker silent for this many intervals is lost; its leases return.
inline constexpr int kMissedHeartbeatsBeforeLost = 3;
// A lost worker stays in `tuneforge workers` (state "lost") this long, so an
// operator sees what went away, then leaves the list.
inline constexpr int64_t kLostWorkerListedMs = 10 * 60 * 1000;

// ---- Leases -------------------------------------------------------------------
// Leases of a task that ended without a result; after the last one the task
// is recorded as worker_lost.
inline constexpr int kMaxAttempts = 3;
// A lease's deadline: kLeaseSlackMs plus, per task, kLeaseMsPerTimeoutS per
// second of the task's timeout (the check run and the timed runs are each
// bounded by it) and kLeaseBuildMs for its build and the reference run.
inline constexpr int kLeaseSlackMs = 30000;
inline constexpr int kLeaseMsPerTimeoutS = 2000;
inline constexpr int kLeaseBuildMs = 5000;
// How often expired leases and silent workers are looked for.
inline constexpr int kReaperPeriodMs = 200;
// After a restart, the pending tasks that were leased before it are not
// leased again until their old worker could have reported them (it retries
// its report against the new server): a whole lease of default-timeout tasks
// would take longer, but a worker reports each result as it comes.
inline constexpr int kRestartGraceMs = 2 * kHeartbeatIntervalMs * kMissedHeartbeatsBeforeLost;

// ---- Builds for runner-only workers -------------------------------------------
// A compile that takes longer is that task's compile_error.
inline constexpr double kBuildTimeoutS = 60;

// ---- Jobs -------------------------------------------------------------------------
// Candidates per round when the spec leaves batch_size 0.
inline constexpr int kDefaultBatchSize = 64;
inline constexpr int kMaxWorkloadsPerJob = 1000;
// How often one workload may run in a model: far more than any network repeats a layer.
inline constexpr double kMaxWorkloadWeight = 1e6;
// Re-timing: the fastest N once-timed programs per workload after each round
// (spec retime_top 0), at most kMaxRetimeTop.
inline constexpr int kDefaultRetimeTop = 3;
inline constexpr int kMaxRetimeTop = 64;
// A final comparison whose leaders all ran this much slower than their
// medians before it ran at a busy moment of the machine, and is issued
// again (retiming.h), up to kMaxComparisons in all.
inline constexpr double kBusyComparisonSlowdown = 1.25;
inline constexpr int kMaxComparisons = 3;
// The pause before comparing again (JobManagerOptions::compare_again_after):
// a Winograd conv's leaders timed 1.4x slow in three comparisons seconds
// apart, then ran at their usual speed in later processes.
inline constexpr absl::Duration kCompareAgainAfter = absl::Seconds(10);
// A job goes on from the store's earlier records of its workloads
// (earlier_records.h): this many of the fastest seed its search (Ansor's
// evolution takes about a fifth of its 512 samples from the best measured).
inline constexpr int kContinueFromFastest = 128;
// How often the search thread looks for jobs whose round is measured.
inline constexpr int kSearchPollMs = 100;

}  // namespace tuneforge::server
