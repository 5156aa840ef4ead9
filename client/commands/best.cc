#include "client/commands/best.h"

#include <algorithm>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/best_of_forms.h"
#include "client/cli_error.h"
#include "client/device_key_flag.h"
#include "client/json_text.h"
#include "client/job_view.h"
#include "client/record_source.h"
#include "client/workload_arg.h"

namespace tuneforge::cli {
namespace {

struct BestArgs {
  std::string spec;
  std::string def_file;
  DeviceKeyFlag device;  // "" = any
  std::string schedule_out;
  RecordSourceArgs source;
  Output out;
};

Json RecordJson(const v1::Record& r, double gflops) {
  return Json{{"found", true},
              {"gflops", gflops},
              {"seconds", r.median_seconds()},
              {"timings", std::max(r.timings(), 1)},
              {"schedule", ScheduleTextToJson(r.schedule_json())},
              {"target", r.device_key()},
              {"workload", r.workload()},
              {"workload_key", r.workload_key()},
              {"job", r.job_id()},
              {"record_id", r.id()},
              {"worker", r.worker_id()},
              {"created_unix_ms", r.created_unix_ms()}};
}

// Each form's best, its speed in the asked workload's FLOPs.
Json FormsJson(const BestOverForms& found, const te::Workload& asked) {
  Json forms = Json::array();
  for (const FormBest& f : found.forms)
    forms.push_back(Json{{"workload", f.form.spec},
                         {"found", f.record.has_value()},
                         {"gflops", f.record ? Json(GflopsOf(asked, *f.record)) : Json()},
                         {"seconds", f.record ? Json(f.record->median_seconds()) : Json()},
                         {"record_id", f.record ? Json(f.record->id()) : Json()}});
  return forms;
}

int RunBest(const BestArgs& args) {
  if (args.spec.empty() == args.def_file.empty())
    return Fail(args.out, args.spec.empty()
                              ? "no workload: name one as OP:KEY=VALUE,... or give --def FILE"
                              : "give the workload either as OP:KEY=VALUE,... or with --def FILE, not both");
  absl::StatusOr<ApiWorkload> w = ResolveApiWorkload(args.spec, args.def_file);
  if (!w.ok()) return Fail(args.out, w.status());
  const std::string key = w->parsed.dag->workload_key();
  absl::StatusOr<std::string> device = DeviceKeyOf(args.device);
  if (!device.ok()) return Fail(args.out, device.status());
  absl::StatusOr<std::unique_ptr<RecordSource>> source =
      RecordSource::Open(args.source, RecordSource::Mode::kRead);
  if (!source.ok()) return Fail(args.out, source.status());
  absl::StatusOr<BestOverForms> found = FindBestOverForms(**source, w->parsed, {*device});
  if (!found.ok()) return Fail(args.out, found.status());
  const FormBest* best = found->best();
  if (best == nullptr) {
    // Not an error: the question has an answer, "none yet".
    Json result{{"found", false},        {"gflops", nullptr},
                {"seconds", nullptr},    {"schedule", nullptr},
                {"target", device->empty() ? Json() : Json(*device)},
                {"workload", w->parsed.spec}, {"workload_key", key},
                {"form", nullptr},       {"forms", FormsJson(*found, w->parsed)}};
    std::string text = absl::StrCat("no correct record for ", w->parsed.spec, " (key ", key, ")",
                                    found->forms.size() > 1 ? " or its other forms" : "",
                                    device->empty() ? "" : " on " + *device, " in ",
                                    (*source)->Describe(), "; tune it with: tuneforge tune ",
                                    w->parsed.spec);
    return Succeed(args.out, result, text);
  }
  const v1::Record& r = *best->record;
  const bool other_form = r.workload_key() != key;
  const double gflops = GflopsOf(w->parsed, r);
  if (!args.schedule_out.empty()) {
    std::ofstream file(args.schedule_out);
    file << r.schedule_json() << "\n";
    if (!file)
      return Fail(args.out, absl::StrCat("cannot write the schedule to '", args.schedule_out,
                                         "'; check the folder exists and is writable"));
  }
  const std::string name =
      other_form ? absl::StrCat(w->parsed.spec, " (its best form: ", best->form.spec, ")") : w->parsed.spec;
  std::string text = absl::StrFormat(
      "%s on %s: %.1f GFLOPS (%.4f ms, median of %d timing session%s), record %d of job %s\n%s",
      name, r.device_key(), gflops, r.median_seconds() * 1e3, std::max(r.timings(), 1),
      r.timings() > 1 ? "s" : "", r.id(), r.job_id(),
      JsonText(ScheduleTextToJson(r.schedule_json()), 2));
  Json result = RecordJson(r, gflops);
  // `workload` is the one asked about; `form` the one the schedule is of.
  if (other_form) {
    result["workload"] = w->parsed.spec;
    result["workload_key"] = key;
  }
  result["form"] = best->form.spec;
  result["forms"] = FormsJson(*found, w->parsed);
  return Succeed(args.out, result, text);
}

}  // namespace

void AddBestCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BestArgs>();
  CLI::App* cmd = app.add_subcommand(
      "best", "The best correct record of a workload (of a 3x3 conv: the faster of its forms) and its schedule");
  cmd->add_option("workload", args->spec, "OP:KEY=VALUE,...");
  cmd->add_option("--def", args->def_file, "compute-definition file instead of a spec");
  AddDeviceKeyFlag(cmd, &args->device, "device key (default: the best over all devices)");
  cmd->add_option("--out", args->schedule_out, "also write the schedule to this file");
  AddRecordSourceFlags(cmd, &args->source);
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunBest(*args); });
}

}  // namespace tuneforge::cli
