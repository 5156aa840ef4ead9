#include "server/core/job_search.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_json.h"
#include "measure/behind_best.h"
#include "search/task_scheduler/share_round.h"
#include "search/task_scheduler/task_scheduler.h"
#include "server/core/earlier_records.h"
#include "server/core/job_ids.h"
#include "server/core/retiming.h"
#include "server/core/service_constants.h"
#include "server/core/workload_cache.h"

namespace tuneforge::server {
namespace {

// Elements the workload writes: its outputs' sizes.
double OutputElements(const te::ComputeDag& dag) {
  double total = 0;
  for (int i : dag.OutputOps()) {
    double n = 1;
    for (int64_t extent : dag.op(i)->shape) n *= static_cast<double>(extent);
    total += n;
  }
  return total;
}

}  // namespace

absl::Status JobSearch::Start(JobRuntime* rt, const std::vector<std::vector<std::string>>& pending) {
  absl::StatusOr<search::PolicyKind> kind = search::ParsePolicy(rt->job.spec.policy);
  if (!kind.ok()) return kind.status();
  absl::StatusOr<search::SketchSelection> selection = search::ParseSketchSelection(rt->job.spec.sketch_selection);
  if (!selection.ok()) return selection.status();
  absl::StatusOr<search::MutationChoice> mutation_choice = search::ParseMutationChoice(rt->job.spec.mutation_choice);
  if (!mutation_choice.ok()) return mutation_choice.status();
  uint64_t seed = SearchSeed(rt->job);
  const std::string& device_key = rt->job.spec.device_key;
  // A key not of the ARCH-ISA-Nc form (a custom one) tunes with defaults.
  search::HardwareParams hw = search::HardwareParamsFromDeviceKey(device_key).value_or(search::HardwareParams{});
  std::shared_ptr<search::SharedCostModel> model;
  if (*kind != search::PolicyKind::kRandom) model = cost_models_->For(device_key);
  search::TaskSchedulerKind scheduler = scheduler_;  // the server's, unless the spec names one
  if (!rt->job.spec.task_scheduler.empty()) {
    absl::StatusOr<search::TaskSchedulerKind> named = search::ParseTaskScheduler(rt->job.spec.task_scheduler);
    if (!named.ok()) return named.status();
    scheduler = *named;
  }
  rt->cost_model = model;
  rt->policies.clear();
  rt->feedback.assign(rt->workloads.size(), {});
  rt->tasks.assign(rt->workloads.size(), {});
  rt->compile_times.assign(rt->workloads.size(), {});
  rt->job.tasks.resize(rt->workloads.size());
  rt->earlier_best_seconds.assign(rt->workloads.size(), 0);
  for (size_t i = 0; i < rt->workloads.size(); ++i) {
    absl::StatusOr<EarlierRecords> earlier =
        LoadEarlierRecords(*store_, rt->workloads[i].dag->workload_key(), device_key, rt->job.id);
    if (!earlier.ok()) return earlier.status();
    rt->tasks[i].flops = rt->workloads[i].dag->flops();
    rt->tasks[i].group =
        search::SimilarityGroup(rt->workloads[i].op, rt->tasks[i].flops, OutputElements(*rt->workloads[i].dag));
    rt->tasks[i].weight = i < rt->job.spec.weights.size() ? rt->job.spec.weights[i] : 1.0;
    rt->tasks[i].form_of = i < rt->job.spec.form_of.size() ? rt->job.spec.form_of[i] - 1 : -1;
    rt->tasks[i].untuned = i < rt->job.spec.untuned.size() && rt->job.spec.untuned[i];
    TaskProgress& shown = rt->job.tasks[i];
    shown.workload_key = rt->workloads[i].dag->workload_key();
    shown.workload = WorkloadLabel(rt->job.spec.workloads[i], rt->workloads[i]);
    shown.weight = rt->tasks[i].weight;
    const int droplet_after = rt->job.spec.droplet_after > 0 ? rt->job.spec.droplet_after : search::kDefaultDropletAfter;
    const double neighbour_share = rt->job.spec.neighbour_share.value_or(search::kDefaultBestNeighbourShare);
    rt->policies.push_back(search::MakePolicy(*kind, {rt->workloads[i].dag, hw, model, seed + i, *selection,
                                                      droplet_after, *mutation_choice, neighbour_share}));
    std::vector<std::vector<schedule::Step>> done;
    auto mark = [&](const std::vector<std::string>& texts) {
      for (const std::string& text : texts)
        if (absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(text); s.ok()) done.push_back(s->steps);
    };
    mark(earlier->measured);
    if (i < pending.size()) mark(pending[i]);
    rt->policies.back()->MarkMeasured(done);
    rt->policies.back()->ContinueFrom(earlier->fastest);
    // The scheduler counts the earlier trials and best as the task's own: a
    // task that had its warm-up does not get another.
    rt->tasks[i].trials = static_cast<int64_t>(done.size());
    rt->tasks[i].best_seconds = earlier->best_seconds;
    rt->earlier_best_seconds[i] = earlier->best_seconds;
    shown.best_seconds = earlier->best_seconds;
  }
  rt->scheduler = search::MakeTaskScheduler(scheduler, seed);
  rt->started = absl::Now();
  rt->trials_at_start = rt->job.trials_done;
  return absl::OkStatus();
}

PlannedRound JobSearch::Next(JobRuntime* rt, std::vector<std::vector<search::MeasuredCandidate>> feedback,
                             int want) {
  PlannedRound round;
  absl::Time t = absl::Now();
  bool learned = false;
  {
    // Every task's results first, then one retraining of the shared model.
    std::optional<search::SharedCostModel::Batch> batch;
    if (rt->cost_model) batch.emplace(*rt->cost_model);
    for (size_t i = 0; i < rt->policies.size() && i < feedback.size(); ++i) {
      if (feedback[i].empty()) continue;
      for (const search::MeasuredCandidate& c : feedback[i])
        if (c.ok && (rt->tasks[i].best_seconds == 0 || c.seconds < rt->tasks[i].best_seconds))
          rt->tasks[i].best_seconds = c.seconds;
      rt->policies[i]->Update(feedback[i]);
      learned = true;
    }
  }
  round.cost.learn_seconds = absl::ToDoubleSeconds(absl::Now() - t);
  if (learned) (void)cost_models_->Save(rt->job.spec.device_key);  // a restart retrains from records
  // Once the comparison is issued, the other records' medians decide
  // nothing: re-timing them (the comparison's leaders now slower than a
  // few timed once) cost a 1,000-trial matmul tuning ~25 re-timings.
  if (!rt->compared()) round.tasks = RetimeTasks(rt);
  round.retimes = round.tasks.size();
  t = absl::Now();
  if (want > 0)
    for (TaskRow& task : ProposeTasks(rt, want, &round.cost)) round.tasks.push_back(std::move(task));
  round.cost.propose_seconds = absl::ToDoubleSeconds(absl::Now() - t);
  if (round.tasks.empty()) {  // nothing left to search or re-time: settle the leaders
    round.tasks = ComparisonTasks(rt);
    round.retimes = round.tasks.size();
  }
  return round;
}

std::vector<TaskRow> JobSearch::RetimeTasks(JobRuntime* rt) {
  std::vector<TaskRow> tasks;
  const int top = RetimeTop(rt->job.spec);
  for (size_t w = 0; w < rt->workloads.size(); ++w) {
    absl::StatusOr<std::vector<Record>> records = RecordsToRetime(
        *store_, rt->job.id, rt->workloads[w].dag->workload_key(), top, rt->retime_issued);
    if (!records.ok()) continue;  // re-timing is a refinement: the job goes on
    for (const Record& r : *records) {
      std::optional<TaskRow> row = RetimeTask(rt, static_cast<int>(w), r);
      if (!row) continue;
      rt->retime_issued.insert(r.task_id);
      tasks.push_back(*std::move(row));
    }
  }
  return tasks;
}

std::optional<TaskRow> JobSearch::RetimeTask(JobRuntime* rt, int w, const Record& record) {
  absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(record.schedule_json);
  if (!s.ok()) return std::nullopt;
  TaskRow row = MakeTask(rt, w, s->steps);
  row.task.retime_of = record.task_id;  // not a trial: it explores nothing
  row.task.behind = {};                 // a leader: timed in full
  row.task.build_deadline_s = 0;        // and built whatever it takes
  return row;
}

std::vector<TaskRow> JobSearch::ComparisonTasks(JobRuntime* rt) {
  std::vector<TaskRow> tasks;
  if (rt->comparisons >= kMaxComparisons) return tasks;
  const bool first = rt->comparisons == 0;
  if (first) rt->median_before_comparison.clear();
  rt->median_before_comparison.resize(rt->workloads.size());  // none after a restart
  // Per workload, its leaders: the fastest, or after a comparison at a busy
  // moment the same ones again (none where it ran at a fair one).
  std::vector<std::vector<Record>> leaders(rt->workloads.size());
  bool to_compare = false;
  for (size_t w = 0; w < rt->workloads.size(); ++w) {
    const std::string& key = rt->workloads[w].dag->workload_key();
    absl::StatusOr<std::vector<Record>> records =
        first ? RecordsToCompare(*store_, rt->job.id, key, RetimeTop(rt->job.spec))
              : RecordsToCompareAgain(*store_, rt->job.id, key, rt->median_before_comparison[w]);
    if (!records.ok()) continue;  // a refinement: the job still ends
    leaders[w] = *std::move(records);
    to_compare |= leaders[w].size() >= 2;
  }
  // Again only after a pause, from when the busy comparison's results are
  // in: the first call after them starts it, a call after it compares.
  if (!first) {
    if (!to_compare) return tasks;
    const absl::Time now = absl::Now();
    if (!rt->compare_again_at) rt->compare_again_at = now + compare_again_after_ * (1 << (rt->comparisons - 1));
    if (now < *rt->compare_again_at) return tasks;
    rt->compare_again_at.reset();
  }
  // The stamp tells the comparison's sessions from the records' earlier
  // ones, and from an earlier comparison's.
  const int64_t stamp = std::max(absl::ToUnixMillis(absl::Now()), rt->comparison_stamp_ms + 1);
  rt->comparison_stamp_ms = stamp;
  for (size_t w = 0; w < rt->workloads.size(); ++w) {
    std::map<std::string, double>& before = rt->median_before_comparison[w];
    std::vector<TaskRow> pass;
    for (const Record& r : leaders[w]) {
      std::optional<TaskRow> row = RetimeTask(rt, static_cast<int>(w), r);
      if (!row) continue;
      row->task.compared_at_unix_ms = stamp;
      if (first) before[r.task_id] = r.median_seconds;
      pass.push_back(*std::move(row));
    }
    if (pass.size() < 2) continue;
    // Timed in task order: forwards, then backwards (fresh task ids).
    for (size_t i = pass.size(); i-- > 0;) {
      TaskRow again = pass[i];
      again.task_id = again.task.task_id = absl::StrCat(rt->job.id, "-t", rt->next_seq++);
      pass.push_back(std::move(again));
    }
    for (TaskRow& row : pass) tasks.push_back(std::move(row));
  }
  // A job's first comparison counts even when it had nothing to compare:
  // there is nothing to compare again either.
  if (first || !tasks.empty()) ++rt->comparisons;
  return tasks;
}

std::vector<TaskRow> JobSearch::ProposeTasks(JobRuntime* rt, int want, SearchCost* cost) {
  std::vector<search::TaskCandidates> round = search::ShareRound(
      *rt->scheduler, rt->tasks, want, [&](size_t w, int n) {
        std::vector<std::vector<schedule::Step>> proposed = rt->policies[w]->Propose(n);
        cost->programs_scored += rt->policies[w]->ProgramsScoredLastPropose();
        return proposed;
      },
      // At least four tasks a round (a small test batch still reaches every
      // task); a random search costs nothing to ask.
      rt->cost_model ? std::clamp(want / 4, 1, search::kMinShareForSearch) : 1);
  std::vector<TaskRow> tasks;
  for (search::TaskCandidates& share : round)
    for (std::vector<schedule::Step>& steps : share.candidates)
      tasks.push_back(MakeTask(rt, static_cast<int>(share.task), std::move(steps)));
  return tasks;
}

TaskRow JobSearch::MakeTask(JobRuntime* rt, int w, std::vector<schedule::Step> steps) {
  const te::Workload& wl = rt->workloads[w];
  TaskRow row;
  row.task_id = absl::StrCat(rt->job.id, "-t", rt->next_seq++);
  row.job_id = rt->job.id;
  row.device_key = rt->job.spec.device_key;
  row.workload_key = wl.dag->workload_key();
  MeasureTask& t = row.task;
  t.task_id = row.task_id;
  t.workload = rt->job.spec.workloads[w];
  t.workload_key = row.workload_key;
  t.schedule = schedule::Schedule{schedule::kScheduleVersion, wl.spec, row.workload_key, std::move(steps)};
  t.measure = rt->job.spec.measure;
  // Behind the workload's best so far: one checked run, one probe pass or
  // one full repeat ranks it.
  t.behind = measure::BehindBestOf(rt->tasks[w].best_seconds);
  t.build_deadline_s = rt->compile_times[w].DeadlineSeconds();
  return row;
}

}  // namespace tuneforge::server
