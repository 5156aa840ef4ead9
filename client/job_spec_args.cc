#include "client/job_spec_args.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "client/model_workloads.h"
#include "common/te/workload_forms.h"
#include "measure/measure_proto.h"
#include "search/mutation_choice/mutation_choice.h"
#include "search/search_policy.h"
#include "search/sketch_selection/sketch_selection.h"
#include "search/task_scheduler/task_scheduler.h"

namespace tuneforge::cli {

void AddJobSpecFlags(CLI::App* cmd, JobSpecArgs* args) {
  cmd->add_option("--def", args->def_files, "compute-definition file (repeatable)");
  cmd->add_option("--model", args->model,
                  "ONNX model: tune every task of it (fused subgraphs, weighted by how often they run)");
  cmd->add_option("--conv-algorithm", args->conv_algorithm,
                  "how 3x3 stride-1 convolutions are tuned: direct, winograd (F(4x4,3x3)) or auto (both forms, "
                  "the trials shared by the gradient task scheduler; the faster one is the best). Default: auto "
                  "for workloads named on the command line, direct for --model; run, compile and measure --best "
                  "use whichever form has the faster record");
  cmd->add_option("--batch", args->batch, "candidates per round (default 64)");
  cmd->add_option("--policy", args->policy,
                  "search policy: ansor (sketches, evolutionary search, learned cost model), droplet (ansor's "
                  "first trials, then coordinate descent from the best program) or random");
  cmd->add_option("--droplet-after", args->droplet_after,
                  "with --policy droplet: trials of ansor's search before the descent (default 300)");
  cmd->add_option("--threads", args->measure_options.threads, "threads for parallel loops on the worker (0: all cores)");
  cmd->add_option("--timeout", args->measure_options.timeout_s, "seconds allowed per candidate (default 10)");
  cmd->add_option("--number", args->measure_options.number, "runs per repeat (grows to --min-repeat-ms)");
  cmd->add_option("--repeat", args->measure_options.repeat, "timed repeats; the median is reported");
  cmd->add_option("--min-repeat-ms", args->measure_options.min_repeat_ms, "minimum duration of a repeat");
  cmd->add_flag("--flush-cache", args->measure_options.flush_cache, "flush the caches before each run");
  cmd->add_option("--retime", args->retime_top,
                  "after each round, time again the fastest N programs per workload timed once, so a lucky "
                  "measurement cannot crown a winner (default 3; -1: off)");
  cmd->add_option("--seed", args->seed, "seed of the search (default: from the job id)");
  cmd->add_option("--name", args->name, "free text shown in listings");
  cmd->add_option("--sketch-selection", args->sketch_selection,
                  "how ansor spreads each round over a workload's sketches: uniform (Ansor's, the default) or "
                  "learned (successive halving: every sketch gets evolutions of its own, then the faster half more)");
  cmd->add_option("--mutation-choice", args->mutation_choice,
                  "how ansor's evolution picks a mutation rule for a program: fixed (Ansor's weights, the "
                  "default) or learned (a predictor trained on this target's evolutions and measurements)");
  cmd->add_option_function<double>(
      "--neighbour-share", [args](const double& share) { args->neighbour_share = share; },
      absl::StrCat("share of each ansor round, once the cost model has trained, spent on the neighbours of the best "
                   "measured program in its own parameter space, 0 to 1 (default ",
                   search::kDefaultBestNeighbourShare, "; 0: Ansor's evolutionary search alone)"));
  cmd->add_option("--task-scheduler", args->task_scheduler,
                  "how a job of several workloads shares each round: round-robin (the default for workloads "
                  "named on the command line) or gradient (where the weighted sum of latencies is expected to "
                  "fall most; the default for --model and --conv-algorithm auto)");
  cmd->add_option("--weights", args->weights,
                  "how often each workload runs in the model, in workload order (default 1 each)")
      ->delimiter(',');
}

namespace {

// Per workload of a job: 0, or 1 + the index of the workload it is another
// form of (JobSpec.form_of); and whether it is tuned in its forms only
// (JobSpec.untuned). Both empty: no forms.
struct ConvForms {
  std::vector<int> form_of;
  std::vector<bool> untuned;
};

// The model's tasks as the job's workloads, with their weights; with
// --conv-algorithm auto also the other form of each 3x3 conv task.
absl::StatusOr<JobSpecArgs> WithModelTasks(const JobSpecArgs& args, ResolvedJobSpec* out, ConvForms* forms) {
  if (!args.specs.empty() || !args.def_files.empty())
    return absl::InvalidArgumentError(
        "--model tunes the model's own tasks; give the model or workloads (OP:KEY=VALUE, --def), not both");
  if (!args.weights.empty())
    return absl::InvalidArgumentError("--weights: a model's tasks are weighted by how often the model runs them");
  graph::ModelOptions options;
  const bool both_forms = args.conv_algorithm == "auto";
  if (args.conv_algorithm == "winograd") {
    options.conv = graph::ConvAlgorithm::kWinograd;
  } else if (!args.conv_algorithm.empty() && args.conv_algorithm != "direct" && !both_forms) {
    return absl::InvalidArgumentError(absl::StrCat("--conv-algorithm is '", args.conv_algorithm,
                                                   "'; give direct, winograd or auto"));
  }
  absl::StatusOr<ModelWorkloads> m = ResolveModelWorkloads(args.model, options, both_forms);
  if (!m.ok()) return m.status();
  JobSpecArgs resolved = args;
  resolved.weights = m->weights;
  if (resolved.task_scheduler.empty()) resolved.task_scheduler = "gradient";
  if (resolved.name.empty()) resolved.name = m->model->name;
  out->workloads = m->workloads;
  out->model = m->model;
  forms->form_of = m->form_of;
  return resolved;
}

// --conv-algorithm for workloads named on the command line: each conv's
// Winograd form is appended after the workloads, as another form of its conv;
// winograd tunes that form alone (the conv untuned: it still names the
// computation, and the best counts its FLOPs), auto (the default) both: a
// user tuning a 3x3 conv wants its fastest kernel, and Winograd's F(4x4) runs
// 3x3 convs with many channels about twice as fast as the best direct one,
// while at worst its warm-up share goes to a form that loses.
absl::StatusOr<ConvForms> WithConvForms(std::string algorithm, std::vector<ApiWorkload>* workloads) {
  if (algorithm.empty()) algorithm = "auto";
  if (algorithm == "direct") return ConvForms{};
  if (algorithm != "winograd" && algorithm != "auto")
    return absl::InvalidArgumentError(
        absl::StrCat("--conv-algorithm is '", algorithm, "'; give direct, winograd or auto"));
  const size_t named = workloads->size();
  ConvForms forms{std::vector<int>(named, 0), std::vector<bool>(named, false)};
  for (size_t i = 0; i < named; ++i) {
    std::optional<te::Workload> form = te::WinogradFormOf((*workloads)[i].parsed);
    if (!form) {
      if (algorithm == "auto") continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "--conv-algorithm winograd: ", (*workloads)[i].parsed.spec, " has no Winograd form (a conv2d with R=3, "
          "S=3, stride 1, no dilation or groups has one); drop the flag or name such a conv"));
    }
    absl::StatusOr<ApiWorkload> w = ResolveApiWorkload(form->spec, "");
    if (!w.ok()) return w.status();
    workloads->push_back(*std::move(w));
    forms.form_of.push_back(static_cast<int>(i) + 1);
    forms.untuned.push_back(false);
    forms.untuned[i] = algorithm == "winograd";
  }
  if (workloads->size() == named) return ConvForms{};
  if (algorithm == "auto") forms.untuned.clear();
  return forms;
}

}  // namespace

absl::StatusOr<ResolvedJobSpec> BuildJobSpec(const JobSpecArgs& given, const std::string& device_key) {
  ResolvedJobSpec out;
  JobSpecArgs args = given;
  ConvForms conv_forms;
  if (!given.model.empty()) {
    absl::StatusOr<JobSpecArgs> with_model = WithModelTasks(given, &out, &conv_forms);
    if (!with_model.ok()) return with_model.status();
    args = *std::move(with_model);
  }
  if (args.specs.empty() && args.def_files.empty() && out.workloads.empty())
    return absl::InvalidArgumentError(
        "no workload: name one as OP:KEY=VALUE,... (e.g. matmul:M=1024,N=1024,K=1024) or give "
        "--def FILE; 'tuneforge show --ops' lists the ops");
  if (args.trials < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("--trials is ", args.trials, "; give the number of measurements, 1 or more"));
  if (args.retime_top < -1 || args.retime_top > 64)
    return absl::InvalidArgumentError(absl::StrCat(
        "--retime is ", args.retime_top, "; give how many top programs per workload to time again (0-64, "
        "default 3), or -1 for none"));
  const measure::MeasureOptions& m = args.measure_options;
  if (args.batch < 0 || m.threads < 0 || m.timeout_s < 0 || m.number < 0 || m.repeat < 0 ||
      m.min_repeat_ms < 0)
    return absl::InvalidArgumentError(
        "--batch, --threads, --timeout, --number, --repeat and --min-repeat-ms must be 0 (the "
        "default) or more");
  if (absl::StatusOr<search::SketchSelection> s = search::ParseSketchSelection(args.sketch_selection); !s.ok())
    return absl::InvalidArgumentError(absl::StrCat("--sketch-selection: ", s.status().message()));
  if (absl::StatusOr<search::MutationChoice> c = search::ParseMutationChoice(args.mutation_choice); !c.ok())
    return absl::InvalidArgumentError(absl::StrCat("--mutation-choice: ", c.status().message()));
  if (!args.mutation_choice.empty() && args.policy == "random")
    return absl::InvalidArgumentError("--mutation-choice chooses ansor's mutation rules; random search mutates "
                                      "nothing: drop it or use --policy ansor");
  if (args.droplet_after < 0)
    return absl::InvalidArgumentError(absl::StrCat("--droplet-after is ", args.droplet_after,
                                                   "; give the trials of ansor's search before the descent (1 or "
                                                   "more; 0: the default 300)"));
  if (args.droplet_after > 0 && args.policy != "droplet")
    return absl::InvalidArgumentError("--droplet-after sets when the droplet policy's descent starts; add "
                                      "--policy droplet or drop it");
  if (args.neighbour_share && !(*args.neighbour_share >= 0 && *args.neighbour_share <= 1))
    return absl::InvalidArgumentError(absl::StrCat("--neighbour-share is ", *args.neighbour_share,
                                                   "; give a share of each round from 0 (Ansor's search alone) to 1 "
                                                   "(default ", search::kDefaultBestNeighbourShare, ")"));
  if (args.neighbour_share && args.policy == "random")
    return absl::InvalidArgumentError("--neighbour-share sets how much of ansor's rounds go to the best program's "
                                      "neighbours; random search has none: drop it or use --policy ansor");
  if (!args.sketch_selection.empty() && args.policy == "random")
    return absl::InvalidArgumentError("--sketch-selection chooses among ansor's sketches; random search has none: "
                                      "drop it or use --policy ansor");
  if (absl::StatusOr<search::TaskSchedulerKind> k = search::ParseTaskScheduler(args.task_scheduler); !k.ok())
    return absl::InvalidArgumentError(absl::StrCat("--task-scheduler: ", k.status().message()));
  const size_t workloads = out.workloads.size() + args.specs.size() + args.def_files.size();
  if (!args.weights.empty() && args.weights.size() != workloads)
    return absl::InvalidArgumentError(absl::StrCat("--weights has ", args.weights.size(), " weights for ", workloads,
                                                   " workloads; give one per workload, in order"));
  for (double w : args.weights)
    if (!(w > 0) || !std::isfinite(w))
      return absl::InvalidArgumentError(absl::StrCat("--weights: ", w, " is not a weight; give how often each "
                                                     "workload runs in the model (a number > 0)"));
  for (const std::string& spec : args.specs) {
    absl::StatusOr<ApiWorkload> w = ResolveApiWorkload(spec, "");
    if (!w.ok()) return w.status();
    out.workloads.push_back(*std::move(w));
  }
  for (const std::string& file : args.def_files) {
    absl::StatusOr<ApiWorkload> w = ResolveApiWorkload("", file);
    if (!w.ok()) return w.status();
    out.workloads.push_back(*std::move(w));
  }
  if (given.model.empty()) {
    absl::StatusOr<ConvForms> forms = WithConvForms(args.conv_algorithm, &out.workloads);
    if (!forms.ok()) return forms.status();
    conv_forms = *std::move(forms);
    const std::vector<int>& form_of = conv_forms.form_of;
    if (!form_of.empty() && args.task_scheduler.empty()) args.task_scheduler = "gradient";
    if (!form_of.empty() && !args.weights.empty())
      for (size_t i = args.weights.size(); i < form_of.size(); ++i)
        args.weights.push_back(args.weights[form_of[i] - 1]);
  }
  v1::JobSpec& spec = out.spec;
  for (const ApiWorkload& w : out.workloads) *spec.add_workloads() = w.message;
  spec.set_device_key(device_key);
  spec.set_trials(args.trials);
  spec.set_policy(args.policy);
  spec.set_batch_size(args.batch);
  spec.set_seed(args.seed);
  spec.set_retime_top(args.retime_top);
  spec.set_name(args.name);
  spec.set_task_scheduler(args.task_scheduler);
  spec.set_sketch_selection(args.sketch_selection);
  spec.set_droplet_after(args.droplet_after);
  spec.set_mutation_choice(args.mutation_choice);
  if (args.neighbour_share) spec.set_neighbour_share(*args.neighbour_share);
  spec.mutable_weights()->Assign(args.weights.begin(), args.weights.end());
  spec.mutable_form_of()->Assign(conv_forms.form_of.begin(), conv_forms.form_of.end());
  for (bool untuned : conv_forms.untuned) spec.add_untuned(untuned);
  *spec.mutable_measure() = measure::MeasureOptionsToProto(m);
  return out;
}

}  // namespace tuneforge::cli
