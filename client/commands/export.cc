#include "client/commands/export.h"

#include <fstream>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "client/cli_error.h"
#include "client/device_key_flag.h"
#include "client/record_source.h"
#include "client/workload_arg.h"

namespace tuneforge::cli {
namespace {

struct ExportArgs {
  std::string out_file;  // "" = stdout
  std::string workload;  // filter, a spec
  std::string def_file;  // filter, a definition
  DeviceKeyFlag device;  // filter
  RecordSourceArgs source;
  Output out;
};

absl::StatusOr<std::string> WorkloadKeyFilter(const ExportArgs& args) {
  if (args.workload.empty() && args.def_file.empty()) return std::string();
  if (!args.workload.empty() && !args.def_file.empty())
    return absl::InvalidArgumentError("give --workload or --def, not both");
  absl::StatusOr<ApiWorkload> w = ResolveApiWorkload(args.workload, args.def_file);
  if (!w.ok()) return w.status();
  return w->parsed.dag->workload_key();
}

int RunExport(const ExportArgs& args) {
  if (args.out.json && args.out_file.empty())
    return Fail(args.out, "--json prints a summary on stdout, so the records need --out F.jsonl");
  absl::StatusOr<std::string> key = WorkloadKeyFilter(args);
  if (!key.ok()) return Fail(args.out, key.status());
  absl::StatusOr<std::string> device = DeviceKeyOf(args.device);
  if (!device.ok()) return Fail(args.out, device.status());
  absl::StatusOr<std::unique_ptr<RecordSource>> source =
      RecordSource::Open(args.source, RecordSource::Mode::kRead);
  if (!source.ok()) return Fail(args.out, source.status());

  std::ofstream file;
  if (!args.out_file.empty()) {
    file.open(args.out_file, std::ios::trunc);
    if (!file)
      return Fail(args.out, absl::StrCat("cannot write '", args.out_file,
                                         "'; check the folder exists and is writable"));
  }
  std::ostream& sink = args.out_file.empty() ? std::cout : file;
  absl::StatusOr<int64_t> count =
      (*source)->Export(*key, *device, [&](const std::string& line) { sink << line << '\n'; });
  if (!count.ok()) return Fail(args.out, count.status());
  sink.flush();
  if (!sink)
    return Fail(args.out, absl::StrCat("writing the records to '",
                                       args.out_file.empty() ? "stdout" : args.out_file,
                                       "' failed; check the disk has room"));
  Json result{{"exported", *count},
              {"out", args.out_file.empty() ? Json() : Json(args.out_file)},
              {"source", (*source)->Describe()}};
  std::string text = absl::StrCat("exported ", *count, " records from ", (*source)->Describe());
  if (args.out_file.empty()) {
    std::cerr << text << "\n";  // stdout holds the records
    return 0;
  }
  return Succeed(args.out, result, absl::StrCat(text, " to ", args.out_file));
}

}  // namespace

void AddExportCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export", "Records as JSON lines, one record per line");
  cmd->add_option("--out", args->out_file, "file to write (default: stdout)");
  cmd->add_option("--workload", args->workload, "only records of this workload (OP:KEY=VALUE,...)");
  cmd->add_option("--def", args->def_file, "only records of this compute definition");
  AddDeviceKeyFlag(cmd, &args->device, "only records of this device key");
  AddRecordSourceFlags(cmd, &args->source);
  cmd->add_flag("--json", args->out.json, "a JSON summary on stdout (needs --out)");
  cmd->callback([args, exit_code] { *exit_code = RunExport(*args); });
}

}  // namespace tuneforge::cli
