#include "client/job_view.h"

#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/api/jobs_client.h"
#include "search/search_policy.h"
#include "search/task_scheduler/task_scheduler.h"

namespace tuneforge::cli {
namespace {

constexpr int kDefaultBatch = 64;  // JobSpec.batch_size 0

Json WorkloadNames(const v1::JobSpec& spec) {
  Json names = Json::array();
  for (const v1::Workload& w : spec.workloads())
    names.push_back(w.has_definition() ? "def:" + (w.name().empty() ? "def" : w.name()) : w.spec());
  return names;
}

std::string FormatEta(double eta_s) {
  if (eta_s < 0 || !std::isfinite(eta_s)) return "ETA ?";
  if (eta_s < 100) return absl::StrFormat("ETA %.0f s", eta_s);
  if (eta_s < 6000) return absl::StrFormat("ETA %.0f min", eta_s / 60);
  return absl::StrFormat("ETA %.1f h", eta_s / 3600);
}

// The tasks as the scheduler weighs them: best, weight, and which task
// each is another form of (JobSpec.form_of).
std::vector<search::TaskState> SchedulerView(const v1::Job& job) {
  std::vector<search::TaskState> tasks;
  for (int i = 0; i < job.tasks_size(); ++i) {
    search::TaskState t;
    t.best_seconds = job.tasks(i).best_seconds();
    t.weight = job.tasks(i).weight();
    t.form_of = i < job.spec().form_of_size() ? job.spec().form_of(i) - 1 : -1;
    tasks.push_back(t);
  }
  return tasks;
}

// Sum of weight x best over the tasks that have a best (of forms, the
// fastest).
double EstimatedLatencySeconds(const v1::Job& job) { return search::EstimatedLatencySeconds(SchedulerView(job)); }

// A task's share of the estimated latency; a form slower than another of
// its task has none (the faster one runs).
std::optional<double> Share(const std::vector<search::TaskState>& tasks, size_t i, double total) {
  const search::TaskState& t = tasks[i];
  if (t.best_seconds <= 0 || total <= 0 || t.best_seconds > search::FastestFormSeconds(tasks, i)) return std::nullopt;
  return t.weight * t.best_seconds / total;
}

Json TasksToJson(const v1::Job& job) {
  const double total = EstimatedLatencySeconds(job);
  const std::vector<search::TaskState> view = SchedulerView(job);
  Json tasks = Json::array();
  for (int i = 0; i < job.tasks_size(); ++i) {
    const v1::TaskProgress& t = job.tasks(i);
    const bool has_best = t.best_seconds() > 0;
    const std::optional<double> share = Share(view, i, total);
    const int of = view[i].form_of;
    tasks.push_back(Json{{"workload", t.workload()},
                         {"workload_key", t.workload_key()},
                         {"trials", t.trials()},
                         {"best_ms", has_best ? Json(t.best_seconds() * 1e3) : Json()},
                         {"weight", t.weight()},
                         {"share", share ? Json(*share) : Json()},
                         {"form_of", of >= 0 && of < job.tasks_size() ? Json(job.tasks(of).workload()) : Json()},
                         {"untuned", i < job.spec().untuned_size() && job.spec().untuned(i)}});
  }
  return tasks;
}

std::string TasksToText(const v1::Job& job) {
  const double total = EstimatedLatencySeconds(job);
  const std::vector<search::TaskState> view = SchedulerView(job);
  std::string text = absl::StrFormat("\n  estimated end-to-end latency %.4g ms (sum of weight x best)", total * 1e3);
  for (int i = 0; i < job.tasks_size(); ++i) {
    const v1::TaskProgress& t = job.tasks(i);
    absl::StrAppend(&text, absl::StrFormat("\n  %-40s %5d trials  ", t.workload(), t.trials()));
    const std::optional<double> share = Share(view, i, total);
    if (share)
      absl::StrAppend(&text, absl::StrFormat("best %9.4g ms  weight %g  share %4.1f%%", t.best_seconds() * 1e3,
                                             t.weight(), 100 * *share));
    else if (t.best_seconds() > 0)
      absl::StrAppend(&text, absl::StrFormat("best %9.4g ms  weight %g  (another form is faster)",
                                             t.best_seconds() * 1e3, t.weight()));
    else
      absl::StrAppend(&text, absl::StrFormat("no best yet     weight %g", t.weight()));
  }
  return text;
}

}  // namespace

Json SearchCostToJson(const v1::SearchCost& cost) {
  return Json{{"propose_s", cost.propose_seconds()},
              {"learn_s", cost.learn_seconds()},
              {"programs_scored", cost.programs_scored()}};
}

Json MeasureCostToJson(const v1::MeasureCost& cost) {
  return Json{{"compile_s", cost.compile_seconds()},
              {"run_s", cost.run_seconds()},
              {"retime_s", cost.retime_seconds()}};
}

Json ScheduleTextToJson(const std::string& text) {
  if (text.empty()) return Json();
  Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? Json() : parsed;
}

Json JobToJson(const v1::Job& job) {
  bool has_best = job.best_seconds() > 0;
  return Json{{"job", job.id()},
              {"state", client::JobStateName(job.state())},
              {"trials_done", job.trials_done()},
              {"trials_total", job.trials_total()},
              {"best_gflops", job.best_gflops()},
              {"best_seconds", has_best ? Json(job.best_seconds()) : Json()},
              {"best_schedule", ScheduleTextToJson(job.best_schedule_json())},
              {"best_workload_key", job.best_workload_key()},
              {"device_key", job.spec().device_key()},
              {"waiting_for_worker", job.waiting_for_worker()},
              {"emulated_device", job.emulated_device()},
              {"workloads", WorkloadNames(job.spec())},
              {"name", job.spec().name()},
              {"errors", job.errors()},
              {"retimed", job.retimed()},
              {"search", SearchCostToJson(job.search_total())},
              {"search_last_round", SearchCostToJson(job.search_last_round())},
              {"measure", MeasureCostToJson(job.measure_total())},
              {"error", job.error().empty() ? Json() : Json(job.error())},
              {"created_unix_ms", job.created_unix_ms()},
              {"updated_unix_ms", job.updated_unix_ms()},
              {"task_scheduler", job.spec().task_scheduler().empty() ? "round-robin" : job.spec().task_scheduler()},
              {"sketch_selection", job.spec().sketch_selection().empty() ? "uniform" : job.spec().sketch_selection()},
              {"mutation_choice", job.spec().mutation_choice().empty() ? "fixed" : job.spec().mutation_choice()},
              {"policy", job.spec().policy().empty() ? "ansor" : job.spec().policy()},
              {"droplet_after", job.spec().policy() == "droplet"
                                    ? Json(job.spec().droplet_after() > 0 ? job.spec().droplet_after()
                                                                          : search::kDefaultDropletAfter)
                                    : Json()},
              {"neighbour_share", job.spec().policy() == "random"
                                      ? Json()
                                      : Json(job.spec().has_neighbour_share() ? job.spec().neighbour_share()
                                                                              : search::kDefaultBestNeighbourShare)},
              {"estimated_latency_ms", EstimatedLatencySeconds(job) * 1e3},
              {"tasks", TasksToJson(job)}};
}

std::string NoCandidateSucceeded(const v1::Job& job) {
  return absl::StrFormat(
      "job %s ended without a best: no candidate succeeded (%d of %d trials failed); 'tuneforge export' "
      "shows their errors (error_kind, error)",
      job.id(), job.errors(), job.trials_done());
}

std::string JobToText(const v1::Job& job) {
  std::string best = job.best_seconds() > 0
                         ? absl::StrFormat("best %.1f GFLOPS (%.3f ms)", job.best_gflops(),
                                           job.best_seconds() * 1e3)
                         : "no best yet";
  std::string text = absl::StrFormat("job %s  %s  %d/%d trials  %s  device %s", job.id(),
                                     client::JobStateName(job.state()), job.trials_done(),
                                     job.trials_total(), best, job.spec().device_key());
  if (job.errors() > 0) absl::StrAppend(&text, absl::StrFormat("  (%d errors)", job.errors()));
  if (job.waiting_for_worker())
    absl::StrAppend(&text, "\n  waits for a worker with device key ", job.spec().device_key(),
                    ": start one with tuneforge-worker --server HOST:PORT --device-key ",
                    job.spec().device_key());
  if (job.emulated_device())
    absl::StrAppend(&text, "\n  the device is emulated (qemu-user): outputs are checked, timings mean nothing");
  if (!job.error().empty()) absl::StrAppend(&text, "\n  error: ", job.error());
  if (job.tasks_size() > 1) absl::StrAppend(&text, TasksToText(job));
  return text;
}

std::string ProgressLine(const v1::Job& job, double eta_s) {
  int batch = job.spec().batch_size() > 0 ? job.spec().batch_size() : kDefaultBatch;
  int round = (job.trials_done() + batch - 1) / batch;
  std::string best = job.best_seconds() > 0
                         ? absl::StrFormat("best %.1f GFLOPS (%.3g ms)", job.best_gflops(),
                                           job.best_seconds() * 1e3)
                         : "no correct candidate yet";
  std::string line = absl::StrFormat("round %d: %d/%d trials, %s", round, job.trials_done(),
                                     job.trials_total(), best);
  if (job.errors() > 0) absl::StrAppend(&line, absl::StrFormat(", %d errors", job.errors()));
  if (job.retimed() > 0) absl::StrAppend(&line, absl::StrFormat(", %d re-timed", job.retimed()));
  if (job.tasks_size() > 1) {
    int timed = 0;
    for (const v1::TaskProgress& t : job.tasks()) timed += t.best_seconds() > 0;
    absl::StrAppend(&line, absl::StrFormat(", est. end-to-end %.4g ms", EstimatedLatencySeconds(job) * 1e3));
    // Until every task has a best the sum leaves some out: say how many count.
    if (timed < job.tasks_size()) absl::StrAppend(&line, absl::StrFormat(" (%d of %d tasks timed)", timed, job.tasks_size()));
  }
  if (job.emulated_device()) absl::StrAppend(&line, ", emulated device (timings mean nothing)");
  if (client::IsFinished(job.state()))
    absl::StrAppend(&line, ", ", client::JobStateName(job.state()));
  else
    absl::StrAppend(&line, ", ", FormatEta(eta_s));
  // What the server's search cost for the round now measured.
  const v1::SearchCost& last = job.search_last_round();
  if (last.propose_seconds() > 0 || last.learn_seconds() > 0) {
    absl::StrAppend(&line, absl::StrFormat(" | search %.2f s", last.propose_seconds()));
    if (last.programs_scored() > 0)
      absl::StrAppend(&line, absl::StrFormat(" (%d programs scored)", last.programs_scored()));
    if (last.learn_seconds() >= 0.005) absl::StrAppend(&line, absl::StrFormat(", learning %.2f s", last.learn_seconds()));
  }
  return line;
}

}  // namespace tuneforge::cli
