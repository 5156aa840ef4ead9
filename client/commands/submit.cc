#include "client/commands/submit.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "client/api/jobs_client.h"
#include "client/cli_error.h"
#include "client/device_choice.h"
#include "client/job_spec_args.h"
#include "client/job_view.h"
#include "client/server_args.h"

namespace tuneforge::cli {
namespace {

struct SubmitArgs {
  JobSpecArgs job;
  std::string device_key;
  ServerArgs server;
  Output out;
};

int RunSubmit(const SubmitArgs& args) {
  // Check the job before connecting: a bad workload needs no server.
  absl::StatusOr<ResolvedJobSpec> spec = BuildJobSpec(args.job, args.device_key);
  if (!spec.ok()) return Fail(args.out, spec.status());
  absl::StatusOr<client::Connection> connection = Connect(args.server);
  if (!connection.ok()) return Fail(args.out, connection.status());
  absl::StatusOr<std::string> device = ChooseDeviceKey(*connection, args.device_key, "--device-key");
  if (!device.ok()) return Fail(args.out, device.status());
  spec->spec.set_device_key(*device);
  client::JobsClient jobs(*connection);
  absl::StatusOr<v1::Job> job = jobs.Submit(spec->spec);
  if (!job.ok()) return Fail(args.out, job.status());
  std::string text = absl::StrCat("submitted ", JobToText(*job), "\nfollow it with: tuneforge watch ",
                                  job->id(), " --server ", args.server.address);
  return Succeed(args.out, JobToJson(*job), text);
}

}  // namespace

void AddSubmitCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<SubmitArgs>();
  CLI::App* cmd = app.add_subcommand("submit", "Submit a tuning job to a cluster");
  cmd->add_option("workloads", args->job.specs, "OP:KEY=VALUE,... (one or more)");
  cmd->add_option("--trials", args->job.trials, "measurements in all")->required();
  cmd->add_option("--device-key", args->device_key,
                  "device key of the workers to measure on (default: the one key the workers have)");
  AddJobSpecFlags(cmd, &args->job);
  AddServerFlags(cmd, &args->server);
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunSubmit(*args); });
}

}  // namespace tuneforge::cli
