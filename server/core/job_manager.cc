#include "server/core/job_manager.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/schedule/schedule_json.h"
#include "common/schedule/schedule_proto.h"
#include "server/core/cost_models.h"
#include "server/core/job_runtime.h"
#include "server/core/job_spec_check.h"
#include "server/core/retiming.h"

namespace tuneforge::server {
namespace {

int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }

uint64_t SeedOf(const v1::Job& job) {
  if (job.spec().seed() != 0) return job.spec().seed();
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : job.id()) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string NewJobId() {
  static std::mt19937_64 rng(std::random_device{}());
  return absl::StrFormat("job-%012x", rng() & 0xffffffffffffull);
}

class JobManagerImpl : public JobManager {
 public:
  JobManagerImpl(RecordStore* store, Dispatcher* dispatcher)
      : store_(store), dispatcher_(dispatcher), cost_models_(store) {}
  ~JobManagerImpl() override { Shutdown(); }

  absl::Status Resume() {
    absl::StatusOr<std::vector<v1::Job>> jobs = store_->LoadJobs();
    if (!jobs.ok()) return jobs.status();
    for (v1::Job& job : *jobs) {
      auto rt = std::make_unique<JobRuntime>();
      rt->job = std::move(job);
      bool unfinished = !rt->finished();
      if (unfinished) {
        if (absl::Status s = RestoreRunning(rt.get()); !s.ok()) {
          rt->job.set_state(v1::JOB_STATE_FAILED);
          rt->job.set_error(absl::StrCat("could not resume after a restart: ", s.message()));
          rt->dirty = true;
        }
      }
      jobs_[rt->job.id()] = std::move(rt);
    }
    search_ = std::thread([this] { SearchLoop(); });
    return absl::OkStatus();
  }

  absl::StatusOr<v1::Job> Submit(const v1::JobSpec& spec) override {
    absl::StatusOr<std::vector<te::Workload>> parsed = CheckJobSpec(spec);
    if (!parsed.ok()) return parsed.status();
    auto rt = std::make_unique<JobRuntime>();
    rt->job.set_id(NewJobId());
    *rt->job.mutable_spec() = spec;
    // Queued until a worker with its device key is there; then jobs run at
    // once, sharing the workers round-robin.
    rt->job.set_state(v1::JOB_STATE_QUEUED);
    rt->job.set_trials_total(spec.trials());
    rt->job.set_created_unix_ms(NowMs());
    rt->job.set_updated_unix_ms(rt->job.created_unix_ms());
    rt->workloads = *std::move(parsed);
    for (int i = 0; i < spec.workloads_size(); ++i)
      if (absl::Status s = store_->SaveWorkload(rt->workloads[i].dag->workload_key(), spec.workloads(i),
                                                rt->workloads[i].dag->flops());
          !s.ok())
        return s;
    if (absl::Status s = store_->SaveJob(rt->job); !s.ok()) return s;
    absl::Status started = StartSearch(rt.get(), {});
    if (!started.ok()) return started;
    v1::Job out = rt->job;
    {
      std::lock_guard<std::mutex> lock(mu_);
      rt->message = "submitted";
      jobs_[out.id()] = std::move(rt);
    }
    cv_.notify_all();
    return out;
  }

  absl::StatusOr<v1::Job> Get(const std::string& id) const override {
    std::lock_guard<std::mutex> lock(mu_);
    const JobRuntime* rt = Find(id);
    if (!rt) return Unknown(id);
    return rt->job;
  }

  absl::StatusOr<v1::Job> Cancel(const std::string& id) override {
    v1::Job out;
    {
      std::lock_guard<std::mutex> lock(mu_);
      JobRuntime* rt = Find(id);
      if (!rt) return Unknown(id);
      if (rt->finished())
        return absl::FailedPreconditionError(absl::StrCat("job '", id, "' is already ",
                                                          JobStateName(rt->job.state()), "; nothing to cancel"));
      Finish(rt, v1::JOB_STATE_CANCELLED, "cancelled");
      out = rt->job;
    }
    dispatcher_->DropJob(id);
    cv_.notify_all();
    if (absl::Status s = store_->SaveJob(out); !s.ok()) return s;
    return out;
  }

  std::vector<v1::Job> List(v1::JobState state, int limit) const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<v1::Job> out;
    for (const auto& [id, rt] : jobs_)
      if (state == v1::JOB_STATE_UNSPECIFIED || rt->job.state() == state) out.push_back(rt->job);
    std::sort(out.begin(), out.end(), [](const v1::Job& a, const v1::Job& b) {
      return a.created_unix_ms() != b.created_unix_ms() ? a.created_unix_ms() > b.created_unix_ms()
                                                        : a.id() < b.id();
    });
    if (limit > 0 && static_cast<int>(out.size()) > limit) out.resize(limit);
    return out;
  }

  absl::StatusOr<JobUpdate> WaitForUpdate(const std::string& id, uint64_t after_version,
                                          absl::Duration timeout) const override {
    std::unique_lock<std::mutex> lock(mu_);
    const JobRuntime* rt = Find(id);
    if (!rt) return Unknown(id);
    cv_.wait_for(lock, std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout)), [&] {
      return stopping_ || rt->version > after_version || rt->finished();
    });
    JobUpdate u;
    *u.progress.mutable_job() = rt->job;
    u.progress.set_message(rt->message);
    u.progress.set_eta_s(rt->finished() ? 0 : rt->EtaSeconds());
    u.version = rt->version;
    u.finished = rt->finished();
    return u;
  }

  void OnResults(const std::vector<v1::Record>& records) override {
    // A re-timing changed a stored record: the job's best and error count
    // are read back from the store (committed before this call).
    std::map<std::string, JobTotals> retimed_jobs;
    for (const v1::Record& r : records) {
      if (r.retime_of().empty() || retimed_jobs.contains(r.job_id())) continue;
      if (absl::StatusOr<JobTotals> totals = store_->Totals(r.job_id()); totals.ok())
        retimed_jobs[r.job_id()] = *std::move(totals);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const v1::Record& r : records) Account(r);
      for (const auto& [job_id, totals] : retimed_jobs)
        if (JobRuntime* rt = Find(job_id); rt && !rt->finished()) TakeTotals(rt, totals);
    }
    cv_.notify_all();
  }

  void Shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    if (search_.joinable()) search_.join();
    SaveDirty();
  }

 private:
  static absl::Status Unknown(const std::string& id) {
    return absl::NotFoundError(absl::StrCat("id: no job '", id, "'; 'tuneforge status' without an id lists jobs"));
  }
  JobRuntime* Find(const std::string& id) const {
    auto it = jobs_.find(id);
    return it == jobs_.end() ? nullptr : it->second.get();
  }

  // Policies for a running job; `measured` are schedules already in the
  // store (never proposed again).
  absl::Status StartSearch(JobRuntime* rt, const std::vector<std::vector<std::string>>& measured) {
    absl::StatusOr<search::PolicyKind> kind = search::ParsePolicy(rt->job.spec().policy());
    if (!kind.ok()) return kind.status();
    uint64_t seed = SeedOf(rt->job);
    const std::string& device_key = rt->job.spec().device_key();
    // A key not of the ARCH-ISA-Nc form (a custom one) tunes with defaults.
    search::HardwareParams hw = search::HardwareParamsFromDeviceKey(device_key).value_or(search::HardwareParams{});
    std::shared_ptr<search::SharedCostModel> model;
    if (*kind == search::PolicyKind::kAnsor) model = cost_models_.For(device_key);
    rt->policies.clear();
    rt->feedback.assign(rt->workloads.size(), {});
    for (size_t i = 0; i < rt->workloads.size(); ++i) {
      rt->policies.push_back(search::MakePolicy(*kind, {rt->workloads[i].dag, hw, model, seed + i}));
      if (i < measured.size()) {
        std::vector<std::vector<schedule::Step>> done;
        for (const std::string& text : measured[i])
          if (absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(text); s.ok())
            done.push_back(s->steps);
        rt->policies.back()->MarkMeasured(done);
      }
    }
    rt->started = absl::Now();
    rt->trials_at_start = rt->job.trials_done();
    return absl::OkStatus();
  }

  // A job that was queued or running when the server stopped: its progress
  // comes back from its records, its pending tasks go back to the queue.
  absl::Status RestoreRunning(JobRuntime* rt) {
    absl::StatusOr<std::vector<te::Workload>> parsed = CheckJobSpec(rt->job.spec());
    if (!parsed.ok()) return parsed.status();
    rt->workloads = *std::move(parsed);
    absl::StatusOr<JobTotals> totals = store_->Totals(rt->job.id());
    if (!totals.ok()) return totals.status();
    rt->job.set_trials_done(static_cast<int32_t>(totals->trials));
    rt->job.set_errors(static_cast<int32_t>(totals->errors));
    if (totals->best) SetBest(rt, *totals->best);
    absl::StatusOr<std::vector<TaskRow>> pending = store_->PendingTasks(rt->job.id());
    if (!pending.ok()) return pending.status();
    rt->issued = totals->trials;
    for (const TaskRow& t : *pending) rt->issued += t.task.retime_of().empty() ? 1 : 0;
    rt->next_seq = rt->issued + static_cast<int64_t>(pending->size());
    for (const TaskRow& t : *pending) rt->next_seq = std::max(rt->next_seq, TaskSeq(t.task_id) + 1);
    std::vector<std::vector<std::string>> measured;
    for (const te::Workload& w : rt->workloads) {
      absl::StatusOr<std::vector<std::string>> m =
          store_->MeasuredSchedules(w.dag->workload_key(), rt->job.spec().device_key());
      measured.push_back(m.ok() ? *m : std::vector<std::string>{});
    }
    for (const TaskRow& t : *pending) {  // pending ones are not proposed again either
      for (size_t i = 0; i < rt->workloads.size(); ++i)
        if (rt->workloads[i].dag->workload_key() == t.workload_key) {
          absl::StatusOr<schedule::Schedule> s = schedule::ScheduleFromProto(t.task.schedule());
          if (s.ok()) measured[i].push_back(schedule::ScheduleToJsonText(*s, -1));
        }
    }
    if (absl::Status s = StartSearch(rt, measured); !s.ok()) return s;
    rt->job.set_state(v1::JOB_STATE_QUEUED);  // until its workers register again
    rt->message = absl::StrCat("resumed after a restart at ", rt->job.trials_done(), "/",
                               rt->job.trials_total(), " trials");
    if (rt->job.trials_done() >= rt->job.trials_total()) {
      Finish(rt, v1::JOB_STATE_DONE, "done");
    } else {
      dispatcher_->Enqueue(*std::move(pending));
    }
    rt->dirty = true;
    return absl::OkStatus();
  }

  static int64_t TaskSeq(const std::string& task_id) {
    size_t t = task_id.rfind("-t");
    if (t == std::string::npos) return 0;
    return std::strtoll(task_id.c_str() + t + 2, nullptr, 10);
  }

  // The job's errors and best as the store has them (after a re-timing).
  static void TakeTotals(JobRuntime* rt, const JobTotals& totals) {
    rt->job.set_errors(static_cast<int32_t>(totals.errors));
    if (totals.best) {
      SetBest(rt, *totals.best);
    } else {
      rt->job.clear_best_gflops();
      rt->job.clear_best_seconds();
      rt->job.clear_best_schedule_json();
      rt->job.clear_best_workload_key();
    }
    rt->message = rt->ProgressLine();
    rt->dirty = true;
    ++rt->version;
  }

  static void SetBest(JobRuntime* rt, const v1::Record& r) {
    rt->job.set_best_gflops(r.gflops());
    rt->job.set_best_seconds(r.median_seconds());
    rt->job.set_best_schedule_json(r.schedule_json());
    rt->job.set_best_workload_key(r.workload_key());
  }

  void Finish(JobRuntime* rt, v1::JobState state, const std::string& message) {
    rt->job.set_state(state);
    rt->job.set_updated_unix_ms(NowMs());
    rt->message = absl::StrCat(rt->ProgressLine(), ": ", message);
    // The policies are freed by the search thread, which may be using them.
    rt->dirty = true;
    ++rt->version;
  }

  void MarkRunning(JobRuntime* rt) {
    rt->job.set_state(v1::JOB_STATE_RUNNING);
    rt->job.set_updated_unix_ms(NowMs());
    rt->message = absl::StrCat(rt->ProgressLine(), ": running");
    rt->dirty = true;
    ++rt->version;
  }

  // One stored result (under mu_).
  void Account(const v1::Record& r) {
    JobRuntime* rt = Find(r.job_id());
    if (!rt || rt->finished()) return;
    if (rt->job.state() == v1::JOB_STATE_QUEUED) MarkRunning(rt);
    if (!r.retime_of().empty()) {  // not a trial; the best is re-read (OnResults)
      rt->job.set_retimed(rt->job.retimed() + 1);
      return;
    }
    rt->job.set_trials_done(rt->job.trials_done() + 1);
    bool ok = r.error_kind() == "none";
    if (!ok) rt->job.set_errors(rt->job.errors() + 1);
    if (ok && r.gflops() > rt->job.best_gflops()) SetBest(rt, r);
    for (size_t i = 0; i < rt->workloads.size(); ++i) {
      if (rt->workloads[i].dag->workload_key() != r.workload_key()) continue;
      absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(r.schedule_json());
      if (s.ok()) rt->feedback[i].push_back({s->steps, ok, r.median_seconds()});
      break;
    }
    rt->job.set_updated_unix_ms(NowMs());
    rt->message = rt->ProgressLine();
    rt->dirty = true;
    ++rt->version;
    // With re-timing, done once its best is re-timed too (NextRound).
    if (rt->job.trials_done() >= rt->job.trials_total() && RetimeTop(rt->job.spec()) == 0)
      Finish(rt, v1::JOB_STATE_DONE, "done");
  }

  // The search thread: feeds results back to the policies and starts the
  // next round of a job once its previous round is measured.
  void SearchLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (stopping_) break;
      std::vector<JobRuntime*> ready;
      for (auto& [id, rt] : jobs_) {
        if (rt->job.state() == v1::JOB_STATE_QUEUED && dispatcher_->HasWorkerFor(rt->job.spec().device_key()))
          MarkRunning(rt.get());
        if (rt->finished()) {
          rt->policies.clear();
          rt->feedback.clear();
        } else if (dispatcher_->Outstanding(id) == 0) {
          ready.push_back(rt.get());
        }
      }
      for (JobRuntime* rt : ready) NextRound(rt, lock);
      lock.unlock();
      SaveDirty();
      lock.lock();
    }
  }

  // Called with the lock held; releases it while proposing and persisting.
  void NextRound(JobRuntime* rt, std::unique_lock<std::mutex>& lock) {
    std::vector<std::vector<search::MeasuredCandidate>> feedback(rt->policies.size());
    for (size_t i = 0; i < rt->policies.size(); ++i) feedback[i].swap(rt->feedback[i]);
    int want = static_cast<int>(std::min<int64_t>(rt->batch_size(), rt->job.trials_total() - rt->issued));
    std::string job_id = rt->job.id();
    const std::string device_key = rt->job.spec().device_key();
    // Policies are only touched by this thread; the job cannot disappear.
    // Learning (features, retraining) and proposing take seconds: not
    // under the lock that RPCs need.
    lock.unlock();
    v1::SearchCost cost;
    absl::Time t = absl::Now();
    bool learned = false;
    for (size_t i = 0; i < rt->policies.size(); ++i) {
      if (feedback[i].empty()) continue;
      rt->policies[i]->Update(feedback[i]);
      learned = true;
    }
    cost.set_learn_seconds(absl::ToDoubleSeconds(absl::Now() - t));
    if (learned) (void)cost_models_.Save(device_key);  // a restart retrains from records
    std::vector<TaskRow> tasks = RetimeTasks(rt);
    const size_t retimes = tasks.size();
    t = absl::Now();
    if (want > 0)
      for (TaskRow& task : ProposeTasks(rt, want, &cost)) tasks.push_back(std::move(task));
    cost.set_propose_seconds(absl::ToDoubleSeconds(absl::Now() - t));
    absl::Status saved = tasks.empty() ? absl::OkStatus() : store_->AddTasks(tasks);
    lock.lock();
    AddSearchCost(rt, cost, tasks.size() > retimes);
    if (rt->finished()) return;  // cancelled meanwhile
    if (!saved.ok()) {
      Finish(rt, v1::JOB_STATE_FAILED, absl::StrCat("storing tasks failed: ", saved.message()));
      rt->job.set_error(std::string(saved.message()));
      cv_.notify_all();
      return;
    }
    if (tasks.empty()) {
      // Trials left to issue but nothing new proposed: the search ran dry.
      Finish(rt, v1::JOB_STATE_DONE,
             want > 0 ? "the search found no new candidates (search space exhausted)" : "done");
      cv_.notify_all();
      return;
    }
    rt->issued += static_cast<int64_t>(tasks.size() - retimes);
    ++rt->round;
    rt->message = rt->ProgressLine();
    ++rt->version;
    dispatcher_->Enqueue(std::move(tasks));
    cv_.notify_all();
  }

  // Re-timings of the job's fastest programs timed once (search thread,
  // outside the lock: it reads the store).
  std::vector<TaskRow> RetimeTasks(JobRuntime* rt) {
    std::vector<TaskRow> tasks;
    const int top = RetimeTop(rt->job.spec());
    for (size_t w = 0; w < rt->workloads.size(); ++w) {
      absl::StatusOr<std::vector<v1::Record>> records = RecordsToRetime(
          *store_, rt->job.id(), rt->workloads[w].dag->workload_key(), top, rt->retime_issued);
      if (!records.ok()) continue;  // re-timing is a refinement: the job goes on
      for (const v1::Record& r : *records) {
        absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(r.schedule_json());
        if (!s.ok()) continue;
        TaskRow row = MakeTask(rt, static_cast<int>(w), s->steps);
        row.task.set_retime_of(r.task_id());
        rt->retime_issued.insert(r.task_id());
        tasks.push_back(std::move(row));
      }
    }
    return tasks;
  }

  static void AddSearchCost(JobRuntime* rt, const v1::SearchCost& round, bool proposed) {
    // The last round is the last one that proposed candidates (not one that
    // only re-times at the end).
    if (proposed) *rt->job.mutable_search_last_round() = round;
    v1::SearchCost* total = rt->job.mutable_search_total();
    total->set_propose_seconds(total->propose_seconds() + round.propose_seconds());
    total->set_learn_seconds(total->learn_seconds() + round.learn_seconds());
    total->set_programs_scored(total->programs_scored() + round.programs_scored());
    rt->dirty = true;
  }

  // `cost` counts the programs the policies' cost models scored.
  std::vector<TaskRow> ProposeTasks(JobRuntime* rt, int want, v1::SearchCost* cost) {
    std::vector<TaskRow> tasks;
    int n = static_cast<int>(rt->workloads.size());
    // Workloads in turn; one that has no new candidates is skipped.
    for (int tries = 0; static_cast<int>(tasks.size()) < want && tries < n; ++tries) {
      int w = rt->next_workload;
      rt->next_workload = (rt->next_workload + 1) % n;
      int share = (want - static_cast<int>(tasks.size()) + n - 1 - tries) / (n - tries);
      for (std::vector<schedule::Step>& steps : rt->policies[w]->Propose(std::max(1, share)))
        tasks.push_back(MakeTask(rt, w, std::move(steps)));
      cost->set_programs_scored(cost->programs_scored() + rt->policies[w]->ProgramsScoredLastPropose());
    }
    if (static_cast<int>(tasks.size()) > want) tasks.resize(want);
    return tasks;
  }

  TaskRow MakeTask(JobRuntime* rt, int w, std::vector<schedule::Step> steps) {
    const te::Workload& wl = rt->workloads[w];
    TaskRow row;
    row.task_id = absl::StrCat(rt->job.id(), "-t", rt->next_seq++);
    row.job_id = rt->job.id();
    row.device_key = rt->job.spec().device_key();
    row.workload_key = wl.dag->workload_key();
    v1::MeasureTask& t = row.task;
    t.set_task_id(row.task_id);
    *t.mutable_workload() = rt->job.spec().workloads(w);
    t.set_workload_key(row.workload_key);
    schedule::Schedule s{schedule::kScheduleVersion, wl.spec, row.workload_key, std::move(steps)};
    *t.mutable_schedule() = schedule::ScheduleToProto(s);
    *t.mutable_measure() = rt->job.spec().measure();
    return row;
  }

  void SaveDirty() {
    std::vector<v1::Job> dirty;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [id, rt] : jobs_)
        if (rt->dirty) {
          dirty.push_back(rt->job);
          rt->dirty = false;
        }
    }
    for (const v1::Job& job : dirty) (void)store_->SaveJob(job);  // progress is re-derived on restart
  }

  RecordStore* store_;
  Dispatcher* dispatcher_;
  CostModels cost_models_;  // one per device key, shared by the jobs on it
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, std::unique_ptr<JobRuntime>> jobs_;
  bool stopping_ = false;
  std::thread search_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<JobManager>> JobManager::Create(RecordStore* store, Dispatcher* dispatcher,
                                                              JobManagerOptions options) {
  auto jm = std::make_unique<JobManagerImpl>(store, dispatcher);
  if (absl::Status s = jm->Resume(); !s.ok()) return s;
  return std::unique_ptr<JobManager>(std::move(jm));
}

}  // namespace tuneforge::server
