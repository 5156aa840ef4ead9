#include "client/commands/compile.h"

#include <unistd.h>

#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/cli_error.h"
#include "client/device_key_flag.h"
#include "client/model_run.h"
#include "client/record_source.h"
#include "graph/export/model_library.h"
#include "worker/agent/device_key.h"

namespace tuneforge::cli {
namespace {

struct CompileArgs {
  std::string model;
  std::string out_dir;
  std::string name;
  RecordSourceArgs source;
  DeviceKeyFlag device;
  Output out;
};

// libtf_runtime.a (the thread pool, built position-independent) beside this
// binary's folder: build/bin/tuneforge -> build/lib/libtf_runtime.a.
std::string RuntimeArchive() {
  if (const char* env = std::getenv("TUNEFORGE_RUNTIME_ARCHIVE"); env && *env) return env;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::filesystem::path exe(n > 0 ? std::string(self, static_cast<size_t>(n)) : "tuneforge");
  return (exe.parent_path().parent_path() / "lib" / "libtf_runtime.a").string();
}

int RunCompile(const CompileArgs& args) {
  if (args.out_dir.empty()) return Fail(args.out, "no output folder: give --out DIR");
  std::string archive = RuntimeArchive();
  if (!std::filesystem::exists(archive))
    return Fail(args.out, absl::StrCat("the thread-pool archive ", archive,
                                       " is missing; build tuneforge with deploy/setup.sh (or set "
                                       "TUNEFORGE_RUNTIME_ARCHIVE to libtf_runtime.a)"));
  auto model = graph::LoadModel(args.model);
  if (!model.ok()) return Fail(args.out, model.status());
  absl::StatusOr<std::string> device = DeviceKeyOf(args.device);
  if (!device.ok()) return Fail(args.out, device.status());
  std::string device_key = device->empty() ? worker::HostDeviceKey() : *device;
  auto records = OpenModelRecords(args.source, device_key);
  if (!records.ok()) return Fail(args.out, records.status());
  graph::LibraryOptions options{args.out_dir, args.name, archive};
  auto report = graph::WriteModelLibrary(*model, records->lookup, options);
  if (!report.ok()) return Fail(args.out, report.status());
  int untuned = 0;
  for (const graph::KernelInfo& k : report->kernels) untuned += k.tuned ? 0 : 1;
  Json result{{"library", report->library},
              {"header", report->header},
              {"tasks", report->kernels.size()},
              {"untuned_tasks", untuned},
              {"arena_bytes", report->arena_bytes},
              {"weight_bytes", report->weight_bytes},
              {"target", device_key},
              {"records", records->description}};
  std::string text = absl::StrFormat(
      "%s and %s: %d tasks (%d tuned, %d untuned) for %s from %s; %d bytes of weights, a %d-byte arena",
      report->library, report->header, static_cast<int>(report->kernels.size()),
      static_cast<int>(report->kernels.size()) - untuned, untuned, device_key, records->description,
      report->weight_bytes,
      report->arena_bytes);
  return Succeed(args.out, result, text);
}

}  // namespace

void AddCompileCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compile", "Write an ONNX model as a shared library and header with its best kernels, for C programs");
  cmd->add_option("--model", args->model, "ONNX model file")->required();
  cmd->add_option("--out", args->out_dir, "output folder (created)")->required();
  cmd->add_option("--name", args->name, "C prefix of the entry point and file names (default: the model's name)");
  AddRecordSourceFlags(cmd, &args->source);
  AddDeviceKeyFlag(cmd, &args->device, "whose records to use (default: this machine's device key)");
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunCompile(*args); });
}

}  // namespace tuneforge::cli
