// The builder side of a tuneforge-runner process: one BuildRequest ->
// rebuild the workload's DAG, replay, lower, compile -> BuildReply. It runs
// in a child so that a compile that hangs or crashes (LLVM on a pathological
// loop nest) costs one candidate and a restarted child, never the worker.
#pragma once

#include <string>
#include <vector>

#include "common/codegen/target.h"
#include "common/schedule/steps.h"
#include "measure/protocol.h"
#include "measure/workload_source.h"

namespace tuneforge::measure {


// A request for `steps` of `source` (whose DAG has `workload_key`) on
// `target`; no steps: the unscheduled reference.
runner::BuildRequest MakeBuildRequest(const WorkloadSource& source, const std::string& workload_key,
                              const std::vector<schedule::Step>& steps, const codegen::Target& target);

// Runs in the child. Errors are in the reply (invalid_schedule for a
// workload or schedule that does not parse, else BuildSchedule's).
runner::BuildReply ServeBuild(const runner::BuildRequest& request);

}  // namespace tuneforge::measure
