#include "client/job_watch.h"

#include <chrono>
#include <optional>
#include <thread>

#include "absl/strings/str_format.h"
#include "client/job_view.h"

namespace tuneforge::cli {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Prints a line when trials, best or state changed; estimates the ETA from
// the rate seen here when the server gives none.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(std::ostream* out) : out_(out) {}

  void OnProgress(const v1::JobProgress& p) {
    const v1::Job& job = p.job();
    if (!first_) first_ = std::make_pair(Clock::now(), job.trials_done());
    bool changed = job.trials_done() != last_trials_ || job.state() != last_state_ ||
                   job.best_gflops() != last_best_ || job.retimed() != last_retimed_;
    last_trials_ = job.trials_done();
    last_state_ = job.state();
    last_best_ = job.best_gflops();
    last_retimed_ = job.retimed();
    // Nothing measured yet (queued, or the first round in flight): no line.
    bool nothing_yet = job.trials_done() == 0 && !client::IsFinished(job.state());
    if (!changed || nothing_yet || !out_) return;
    *out_ << ProgressLine(job, p.eta_s() >= 0 ? p.eta_s() : OwnEta(job)) << std::endl;
  }

 private:
  double OwnEta(const v1::Job& job) const {
    double elapsed = SecondsSince(first_->first);
    int done_here = job.trials_done() - first_->second;
    if (done_here <= 0 || elapsed <= 0) return -1;
    return (job.trials_total() - job.trials_done()) * elapsed / done_here;
  }

  std::ostream* out_;
  std::optional<std::pair<Clock::time_point, int>> first_;
  int last_trials_ = -1;
  v1::JobState last_state_ = v1::JOB_STATE_UNSPECIFIED;
  double last_best_ = -1;
  int last_retimed_ = -1;
};

bool Retryable(const absl::Status& s) {
  return s.code() == absl::StatusCode::kUnavailable || s.code() == absl::StatusCode::kAborted;
}

}  // namespace

absl::StatusOr<v1::Job> WatchToEnd(client::JobsClient& jobs, const std::string& job_id,
                                   const WatchOptions& options) {
  ProgressPrinter printer(options.progress);
  bool heard = false;
  auto on_progress = [&](const v1::JobProgress& p) {
    heard = true;
    printer.OnProgress(p);
  };
  std::optional<Clock::time_point> unreachable_since;
  double backoff_s = 0.25;
  while (true) {
    heard = false;
    absl::StatusOr<v1::JobProgress> last = jobs.Watch(job_id, on_progress, options.canceller);
    if (last.ok() && client::IsFinished(last->job().state())) return last->job();
    if (!last.ok() && !Retryable(last.status())) return last.status();
    // The stream broke (server restart) or ended early (server shutdown).
    if (heard || !unreachable_since) {
      unreachable_since = Clock::now();
      backoff_s = 0.25;
    }
    if (SecondsSince(*unreachable_since) > options.reconnect_s) {
      if (!last.ok()) return last.status();
      return absl::UnavailableError(absl::StrFormat(
          "the server stopped sending the progress of job %s and did not come back in %.0f s; "
          "check it with 'tuneforge status %s'",
          job_id, options.reconnect_s, job_id));
    }
    if (options.progress) {
      std::string why = last.ok() ? "the stream ended early" : std::string(last.status().message());
      *options.progress << "lost the server (" << why << "); retrying" << std::endl;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(backoff_s));
    backoff_s = std::min(backoff_s * 2, 5.0);
    if (options.canceller && options.canceller->cancelled())
      return absl::CancelledError("stopped watching job " + job_id);
  }
}

}  // namespace tuneforge::cli
