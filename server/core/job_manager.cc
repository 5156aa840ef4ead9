#include "server/core/job_manager.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/core/job_ids.h"
#include "server/core/job_manager_impl.h"
#include "server/core/job_progress.h"
#include "server/core/job_restore.h"
#include "server/core/job_spec_check.h"

namespace tuneforge::server {

absl::Status JobManagerImpl::Resume() {
  absl::StatusOr<std::vector<Job>> jobs = store_->LoadJobs();
  if (!jobs.ok()) return jobs.status();
  for (Job& job : *jobs) {
    auto rt = std::make_unique<JobRuntime>();
    rt->job = std::move(job);
    if (!rt->finished()) {
      if (absl::Status s = RestoreJob(*store_, search_, *dispatcher_, rt.get()); !s.ok()) {
        rt->job.state = JobState::kFailed;
        rt->job.error = absl::StrCat("could not resume after a restart: ", s.message());
        rt->dirty = true;
      }
    }
    jobs_[rt->job.id] = std::move(rt);
  }
  search_thread_ = std::thread([this] { SearchLoop(); });
  return absl::OkStatus();
}

absl::StatusOr<Job> JobManagerImpl::Submit(const JobSpec& spec) {
  absl::StatusOr<std::vector<te::Workload>> parsed = CheckJobSpec(spec);
  if (!parsed.ok()) return parsed.status();
  auto rt = std::make_unique<JobRuntime>();
  rt->job.id = NewJobId();
  rt->job.spec = spec;
  // Queued until a worker with its device key is there; then jobs run at
  // once, sharing the workers round-robin.
  rt->job.state = JobState::kQueued;
  rt->job.trials_total = spec.trials;
  rt->job.created_unix_ms = absl::ToUnixMillis(absl::Now());
  rt->job.updated_unix_ms = rt->job.created_unix_ms;
  rt->workloads = *std::move(parsed);
  for (size_t i = 0; i < spec.workloads.size(); ++i)
    if (absl::Status s = store_->SaveWorkload(rt->workloads[i].dag->workload_key(), spec.workloads[i],
                                              rt->workloads[i].dag->flops());
        !s.ok())
      return s;
  if (absl::Status s = store_->SaveJob(rt->job); !s.ok()) return s;
  if (absl::Status s = search_.Start(rt.get()); !s.ok()) return s;
  Job out = rt->job;
  {
    std::lock_guard<std::mutex> lock(mu_);
    rt->message = "submitted";
    jobs_[out.id] = std::move(rt);
  }
  cv_.notify_all();
  return out;
}

absl::StatusOr<Job> JobManagerImpl::Get(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  const JobRuntime* rt = Find(id);
  if (!rt) return Unknown(id);
  return rt->job;
}

absl::StatusOr<Job> JobManagerImpl::Cancel(const std::string& id) {
  Job out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    JobRuntime* rt = Find(id);
    if (!rt) return Unknown(id);
    if (rt->finished())
      return absl::FailedPreconditionError(
          absl::StrCat("job '", id, "' is already ", JobStateName(rt->job.state), "; nothing to cancel"));
    FinishJob(rt, JobState::kCancelled, "cancelled");
    out = rt->job;
  }
  dispatcher_->DropJob(id);
  cv_.notify_all();
  if (absl::Status s = store_->SaveJob(out); !s.ok()) return s;
  return out;
}

std::vector<Job> JobManagerImpl::List(JobState state, int limit) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Job> out;
  for (const auto& [id, rt] : jobs_)
    if (state == JobState::kUnspecified || rt->job.state == state) out.push_back(rt->job);
  std::sort(out.begin(), out.end(), [](const Job& a, const Job& b) {
    return a.created_unix_ms != b.created_unix_ms ? a.created_unix_ms > b.created_unix_ms : a.id < b.id;
  });
  if (limit > 0 && static_cast<int>(out.size()) > limit) out.resize(limit);
  return out;
}

absl::StatusOr<JobUpdate> JobManagerImpl::WaitForUpdate(const std::string& id, uint64_t after_version,
                                                        absl::Duration timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  const JobRuntime* rt = Find(id);
  if (!rt) return Unknown(id);
  cv_.wait_for(lock, std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout)),
               [&] { return stopping_ || rt->version > after_version || rt->finished(); });
  JobUpdate u;
  u.progress.job = rt->job;
  u.progress.message = rt->message;
  u.progress.eta_s = rt->finished() ? 0 : rt->EtaSeconds();
  u.version = rt->version;
  u.finished = rt->finished();
  return u;
}

void JobManagerImpl::OnResults(const std::vector<MeasuredResult>& results) {
  // A re-timing changed a stored record: the job's best and error count are
  // read back from the store (committed before this call).
  std::lock_guard<std::mutex> totals_lock(totals_mu_);
  std::map<std::string, JobTotals> retimed_jobs;
  for (const MeasuredResult& r : results) {
    const std::string& job_id = r.record.job_id;
    if (!r.is_retime() || retimed_jobs.contains(job_id)) continue;
    if (absl::StatusOr<JobTotals> totals = store_->Totals(job_id); totals.ok())
      retimed_jobs[job_id] = *std::move(totals);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const MeasuredResult& r : results)
      if (JobRuntime* rt = Find(r.record.job_id); rt && !rt->finished()) AccountResult(rt, r);
    // Also for a job that ended meanwhile: a re-timing that lands after the
    // last trial (a best that now times out, say) must not leave the job's
    // best and error count disagreeing with its records.
    for (const auto& [job_id, totals] : retimed_jobs)
      if (JobRuntime* rt = Find(job_id)) TakeTotals(rt, totals);
  }
  cv_.notify_all();
}

void JobManagerImpl::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (search_thread_.joinable()) search_thread_.join();
  SaveDirty();
}

absl::Status JobManagerImpl::Unknown(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("id: no job '", id, "'; 'tuneforge status' without an id lists jobs"));
}

JobRuntime* JobManagerImpl::Find(const std::string& id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : it->second.get();
}

void JobManagerImpl::SaveDirty() {
  std::vector<Job> dirty;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, rt] : jobs_)
      if (rt->dirty) {
        dirty.push_back(rt->job);
        rt->dirty = false;
      }
  }
  for (const Job& job : dirty) (void)store_->SaveJob(job);  // progress is re-derived on restart
}

absl::StatusOr<std::unique_ptr<JobManager>> JobManager::Create(RecordStore* store, Dispatcher* dispatcher,
                                                              JobManagerOptions options) {
  auto jm = std::make_unique<JobManagerImpl>(store, dispatcher, options);
  if (absl::Status s = jm->Resume(); !s.ok()) return s;
  return std::unique_ptr<JobManager>(std::move(jm));
}

}  // namespace tuneforge::server
