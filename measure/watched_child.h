// Measuring a candidate in a forked child that is stopped once it runs past
// a time. A candidate far behind its workload's best is ranked by its
// checked run alone (behind_best.h), but that one run still cost its whole
// time: in 1,000-trial matmul 1024^3 tunings, programs over 3x slower than
// the best took 70-118 s of single runs (one ran 4.85 s a run). The runner
// cannot stop a kernel inside itself, and killing the runner would cost its
// workload buffers and reference outputs; a fork shares them (copy on
// write) and, with the child's thread pool, costs 3-8 ms, so it is used
// where the stopping time is long (kWatchedStopS).
#pragma once

#include <functional>

#include "measure/measure_types.h"

namespace tuneforge::measure {

// Called just before and just after a candidate's checked kernel run.
struct CheckedRunHooks {
  std::function<void()> started;
  std::function<void()> ran;
};

// Runs `measure` in a forked child, which calls the hooks around its
// checked run. A child whose checked run has not ended `stop_s` after it
// started is killed and the result is a kTimeout naming `stop_s` (what
// comes before the run, the copies on write of the outputs it poisons,
// costs a forked child 15-20 ms for 4 MB here, and is not counted); one that
// dies is named as a runner's death is (DiedWhileRunning, runner_process.h).
// Otherwise the child's result; an exception in it, MeasureFailedWith. Where
// no child can be forked, `measure` runs here, unwatched. Call it with no
// parallel loop running: the child restarts the runtime's thread pool.
MeasureResult MeasureInWatchedChild(double stop_s,
                                    const std::function<MeasureResult(const CheckedRunHooks& hooks)>& measure);

}  // namespace tuneforge::measure
