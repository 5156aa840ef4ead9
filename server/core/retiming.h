// Re-timing: a program that measured fastest once may have been lucky (a
// quiet moment on a shared machine). After each round the job manager has
// the job's fastest programs that were timed only once timed again; the
// store merges the sessions (RecordStore::AddResults, retime_of), so a
// best is always a program timed at least twice once the job is done.
//
// The final comparison: merged sessions still mix moments (a shared
// machine steps by up to 1.45x between moments minutes apart), so a
// leader timed twice at quiet moments can outrank a faster one timed at
// busy ones. Once a job has issued all its trials, each workload's fastest
// programs are timed once more side by side, each twice in mirrored order
// (A B C C B A: drift within the round cancels), and the store keeps only
// that comparison's repeats for them (MeasureTask::compared_at_unix_ms).
// Their medians then come from one moment, and the job offers only them as
// its best (RecordStore::Best): the comparison's winner. A record it did
// not time may show a lower median, from another moment; picked from a
// thousand by noisy times, the fastest-looking are mostly the luckiest (in
// a conv tuning, 87 records looked faster than the compared winner, which
// itself re-measured within 1 % of its comparison median).
//
// A comparison at a busy moment times every leader slower (a conv
// tuning's offered best read 131.6 GFLOPS where its winner ran ~450 before
// and after): its winner is still fair, its figure is not. When all its
// leaders ran kBusyComparisonSlowdown x slower than their medians before
// it, the same leaders are compared again (up to kMaxComparisons in all),
// after a pause (JobManagerOptions::compare_again_after, doubled each time):
// a slow spell of the machine lasts seconds, and three comparisons back to
// back had all fallen in one. Each comparison's sessions replace the last's.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/core/service_constants.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

// How many of the fastest programs per workload the job re-times (spec
// retime_top: 0 is the default, -1 none).
int RetimeTop(const JobSpec& spec);

// The job's fastest `top` correct records of the workload, those of them
// timed once and not in `already_issued` (task ids of records whose
// re-timing was issued before: each is re-timed at most once, even when
// its re-timing was lost with a worker).
absl::StatusOr<std::vector<Record>> RecordsToRetime(RecordStore& store, const std::string& job_id,
                                                    const std::string& workload_key, int top,
                                                    const std::set<std::string>& already_issued);

// The records of the workload's comparison: the job's fastest `top`
// correct ones, or none when there is nothing to compare (fewer than two).
absl::StatusOr<std::vector<Record>> RecordsToCompare(RecordStore& store, const std::string& job_id,
                                                     const std::string& workload_key, int top);

// The records of the workload's last comparison when it ran at a busy
// moment, to be compared again; none otherwise. `median_before` maps the
// task id of each record the first comparison timed to its median before
// it (a leader that failed in the comparison no longer counts; with fewer
// than two left, there is nothing to compare).
absl::StatusOr<std::vector<Record>> RecordsToCompareAgain(RecordStore& store, const std::string& job_id,
                                                          const std::string& workload_key,
                                                          const std::map<std::string, double>& median_before);

}  // namespace tuneforge::server
