#include "client/commands/measure.h"

#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/best_of_forms.h"
#include "client/cli_error.h"
#include "client/record_source.h"
#include "client/workload_arg.h"
#include "common/codegen/target.h"
#include "worker/agent/device_key.h"
#include "common/schedule/schedule_json.h"
#include "measure/measurer.h"

namespace tuneforge::cli {
namespace {

struct MeasureArgs {
  WorkloadArgs workload;
  bool naive = false;
  bool best = false;
  std::string db;
  measure::MeasureOptions options;
  Output out;
};

// The faster of the best records of the workload and of its other form,
// each on this machine's device key if there is one, else on any device (CPU
// schedules replay on any CPU; the timing is this machine's either way).
absl::StatusOr<FormBest> BestOfForms(const std::string& db, const te::Workload& workload) {
  RecordSourceArgs source;
  source.db = db;
  absl::StatusOr<std::unique_ptr<RecordSource>> store =
      RecordSource::Open(source, RecordSource::Mode::kRead);
  if (!store.ok()) return store.status();
  absl::StatusOr<BestOverForms> found = FindBestOverForms(**store, workload, {worker::HostDeviceKey(), ""});
  if (!found.ok()) return found.status();
  if (const FormBest* best = found->best()) return *best;
  return absl::NotFoundError(absl::StrCat("the record store ", (*store)->Describe(),
                                          " has no correct record for ", workload.spec, " (key ",
                                          workload.dag->workload_key(), "); tune it first: tuneforge tune ",
                                          workload.spec));
}

int RunMeasure(MeasureArgs args) {
  int sources = !args.workload.schedule_file.empty() + args.naive + args.best;
  if (sources != 1)
    return Fail(args.out, "say what to measure: exactly one of --schedule FILE, --naive or --best");
  if (args.options.threads < 0) return Fail(args.out, "--threads must be 0 (all cores) or more");
  absl::StatusOr<ResolvedWorkload> r = ResolveWorkload(args.workload);
  if (!r.ok()) return Fail(args.out, r.status());
  const te::Workload& w = r->workload;
  std::vector<schedule::Step> steps;
  if (r->schedule) steps = r->schedule->steps;
  std::optional<v1::Record> best;
  te::Workload measured = w;  // w, or the other form whose record is faster
  if (args.best) {
    absl::StatusOr<FormBest> record = BestOfForms(args.db, w);
    if (!record.ok()) return Fail(args.out, record.status());
    absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(record->record->schedule_json());
    if (!s.ok())
      return Fail(args.out, absl::StrCat("record ", record->record->id(), " holds a schedule this build cannot "
                                         "read: ", s.status().message()));
    steps = s->steps;
    best = std::move(record->record);
    measured = std::move(record->form);
  }

  absl::StatusOr<std::unique_ptr<measure::Measurer>> m =
      measure::Measurer::Create(codegen::Target::Host(), args.options);
  if (!m.ok()) return Fail(args.out, m.status());
  measure::MeasureResult res = (*m)->MeasureOne(measured.dag, steps);

  // In the workload's FLOPs, whichever form ran: the forms then compare.
  double gflops = res.ok() && res.median_seconds > 0 ? w.dag->flops() / res.median_seconds / 1e9 : 0;
  Json result{{"workload", w.spec},
              {"workload_key", w.dag->workload_key()},
              {"schedule", args.naive ? "naive" : args.best ? "best" : args.workload.schedule_file},
              {"correct", res.correct},
              {"seconds", res.ok() ? Json(res.median_seconds) : Json()},
              {"gflops", res.ok() ? Json(gflops) : Json()},
              {"compile_ms", res.compile_ms},
              {"error", res.ok() ? Json() : Json(res.error)},
              {"error_kind", measure::ErrorKindName(res.error_kind)},
              {"repeat_seconds", res.repeat_seconds},
              {"number", res.number},
              {"max_abs_error", res.max_abs_error},
              {"threads", args.options.threads},
              {"target", (*m)->target().ToString()},
              {"form", measured.spec}};
  if (best)
    result["best_record"] = Json{{"id", best->id()},
                                 {"target", best->device_key()},
                                 {"job", best->job_id()},
                                 {"gflops", best->gflops()},
                                 {"seconds", best->median_seconds()}};
  if (!res.ok())
    return Fail(args.out, absl::StrFormat("%s: %s", measure::ErrorKindName(res.error_kind), res.error),
                result);
  const std::string name =
      measured.spec == w.spec ? w.spec : absl::StrCat(w.spec, " (its best form: ", measured.spec, ")");
  std::string text = absl::StrFormat(
      "%s\n  %.4f ms  %.1f GFLOPS  correct (max abs error %.2g)  compile %.1f ms  (%d x %d runs)\n",
      name, res.median_seconds * 1e3, gflops, res.max_abs_error, res.compile_ms,
      static_cast<int>(res.repeat_seconds.size()), res.number);
  return Succeed(args.out, result, text);
}

}  // namespace

void AddMeasureCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<MeasureArgs>();
  CLI::App* cmd = app.add_subcommand(
      "measure", "Compile, verify against the reference and time a schedule or the naive program");
  cmd->add_option("workload", args->workload.spec, "OP:KEY=VALUE,... (default: the schedule's)");
  cmd->add_option("--def", args->workload.def_file, "compute-definition file instead of a spec");
  cmd->add_option("--schedule", args->workload.schedule_file, "schedule JSON file");
  cmd->add_flag("--naive", args->naive, "measure the unscheduled program");
  cmd->add_flag("--best", args->best, "measure the best record of the record store");
  cmd->add_option("--db", args->db,
                  absl::StrCat("record store (with --best; default ./", kDefaultDb, ")"));
  cmd->add_option("--threads", args->options.threads, "threads for parallel loops (0: all cores)");
  cmd->add_option("--number", args->options.number, "runs per repeat (grows to --min-repeat-ms)");
  cmd->add_option("--repeat", args->options.repeat, "timed repeats; the median is reported");
  cmd->add_option("--min-repeat-ms", args->options.min_repeat_ms, "minimum duration of a repeat");
  cmd->add_flag("--flush-cache", args->options.flush_cache, "flush the caches before each run");
  cmd->add_option("--timeout", args->options.timeout_s, "seconds allowed per candidate");
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunMeasure(*args); });
}

}  // namespace tuneforge::cli
