// How events change a job as clients see it: a stored result, a re-timing,
// the start of its first round, its end. Called under the job manager's
// lock; each bumps the job's version so watchers wake.
#pragma once

#include <string>

#include "server/core/job_runtime.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

// A job ends: done, failed or cancelled. Its policies are freed later by the
// search thread, which may be using them.
void FinishJob(JobRuntime* rt, JobState state, const std::string& message);
// A queued job got a worker (or its first result).
void MarkRunning(JobRuntime* rt);
// One stored result of the job: a trial (counted, fed back to its policy,
// maybe the new best) or a re-timing (counted; the best is re-read with
// TakeTotals). Ends the job when its last trial is in and nothing is left
// to re-time.
void AccountResult(JobRuntime* rt, const MeasuredResult& result);
// The job's errors and best, and each workload's trials and best, as the
// store has them (after a re-timing, or a restart).
void TakeTotals(JobRuntime* rt, const JobTotals& totals);
void SetBest(JobRuntime* rt, const Record& record);
// Adds a round's search cost; the last round is the last one that proposed
// candidates (not one that only re-times at the end).
void AddSearchCost(JobRuntime* rt, const SearchCost& round, bool proposed);

}  // namespace tuneforge::server
