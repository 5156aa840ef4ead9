#include "server/core/job_runtime.h"

#include "absl/strings/str_format.h"
#include "server/core/job_spec_check.h"

namespace tuneforge::server {

int JobRuntime::batch_size() const {
  return job.spec.batch_size > 0 ? job.spec.batch_size : kDefaultBatchSize;
}

double JobRuntime::EtaSeconds() const {
  int64_t done_here = job.trials_done - trials_at_start;
  if (done_here <= 0) return -1;
  double elapsed = absl::ToDoubleSeconds(absl::Now() - started);
  return elapsed / static_cast<double>(done_here) *
         static_cast<double>(job.trials_total - job.trials_done);
}

std::string JobRuntime::ProgressLine() const {
  std::string line = absl::StrFormat("round %d: %d/%d trials", round, job.trials_done, job.trials_total);
  if (job.best_gflops > 0)
    absl::StrAppendFormat(&line, ", best %.1f GFLOPS (%.4g ms)", job.best_gflops, job.best_seconds * 1e3);
  if (job.errors > 0) absl::StrAppendFormat(&line, ", %d errors", job.errors);
  if (job.retimed > 0) absl::StrAppendFormat(&line, ", %d re-timed", job.retimed);
  return line;
}

}  // namespace tuneforge::server
