#include "client/commands/run.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/cli_error.h"
#include "client/device_key_flag.h"
#include "client/model_report.h"
#include "client/model_run.h"
#include "client/record_source.h"
#include "common/runtime/parallel.h"
#include "worker/agent/device_key.h"

namespace tuneforge::cli {
namespace {

struct RunArgs {
  std::string model;
  RecordSourceArgs source;
  DeviceKeyFlag device;
  int threads = 0;
  ModelRunOptions run;
  Output out;
};

int RunRun(const RunArgs& args) {
  if (args.model.empty()) return Fail(args.out, "no model: give --model F.onnx");
  if (args.threads < 0 || args.run.runs < 1)
    return Fail(args.out, "--threads must be 0 (all cores) or more and --runs 1 or more");
  auto model = graph::LoadModel(args.model);
  if (!model.ok()) return Fail(args.out, model.status());
  absl::StatusOr<std::string> device = DeviceKeyOf(args.device);
  if (!device.ok()) return Fail(args.out, device.status());
  std::string device_key = device->empty() ? worker::HostDeviceKey() : *device;
  if (args.threads > 0) runtime::SetNumThreads(args.threads);

  auto records = OpenModelRecords(args.source, device_key);
  if (!records.ok()) return Fail(args.out, records.status());
  auto report = RunModel(*model, args.model, records->lookup, args.run);
  if (!report.ok()) return Fail(args.out, report.status());
  Json result = ModelReportJson(*model, *report, device_key, records->description);
  std::string text = ModelReportText(*model, *report, device_key, records->description);
  if (!report->outputs_checked)
    return Fail(args.out, absl::StrCat("the outputs do not match ", report->checked_against, ": ", report->mismatch),
                result);
  return Succeed(args.out, result, text);
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run an ONNX model with the best kernels in the record store; check its outputs, report its latency");
  cmd->add_option("--model", args->model, "ONNX model file")->required();
  AddRecordSourceFlags(cmd, &args->source);
  AddDeviceKeyFlag(cmd, &args->device, "whose records to use (default: this machine's device key)");
  cmd->add_option("--threads", args->threads, "threads for parallel loops (default: all cores)");
  cmd->add_option("--runs", args->run.runs, "timed runs after a warm-up; the median is reported (default 20)");
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunRun(*args); });
}

}  // namespace tuneforge::cli
