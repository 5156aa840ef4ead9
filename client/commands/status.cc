#include "client/commands/status.h"

#include <memory>

#include "client/api/jobs_client.h"
#include "client/commands/jobs.h"
#include "client/cli_error.h"
#include "client/job_view.h"
#include "client/server_args.h"

namespace tuneforge::cli {
namespace {

struct StatusArgs {
  std::string job_id;
  ServerArgs server;
  Output out;
};

int RunStatus(const StatusArgs& args) {
  if (args.job_id.empty()) return ListJobs(args.server, "", 100, args.out);
  absl::StatusOr<client::Connection> connection = Connect(args.server);
  if (!connection.ok()) return Fail(args.out, connection.status());
  client::JobsClient jobs(*connection);
  absl::StatusOr<v1::Job> job = jobs.Get(args.job_id);
  if (!job.ok()) return Fail(args.out, job.status());
  return Succeed(args.out, JobToJson(*job), JobToText(*job));
}

}  // namespace

void AddStatusCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<StatusArgs>();
  CLI::App* cmd = app.add_subcommand("status", "A job's state, trials and best (without JOB: every job)");
  cmd->add_option("job", args->job_id, "job id (from submit); without it, the list of jobs");
  AddServerFlags(cmd, &args->server);
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunStatus(*args); });
}

}  // namespace tuneforge::cli
