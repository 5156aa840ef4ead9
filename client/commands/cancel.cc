#include "client/commands/cancel.h"

#include <memory>

#include "client/api/jobs_client.h"
#include "client/cli_error.h"
#include "client/job_view.h"
#include "client/server_args.h"

namespace tuneforge::cli {
namespace {

struct CancelArgs {
  std::string job_id;
  ServerArgs server;
  Output out;
};

int RunCancel(const CancelArgs& args) {
  absl::StatusOr<client::Connection> connection = Connect(args.server);
  if (!connection.ok()) return Fail(args.out, connection.status());
  client::JobsClient jobs(*connection);
  absl::StatusOr<v1::Job> job = jobs.Cancel(args.job_id);
  if (!job.ok()) return Fail(args.out, job.status());
  return Succeed(args.out, JobToJson(*job), "cancelled " + JobToText(*job));
}

}  // namespace

void AddCancelCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CancelArgs>();
  CLI::App* cmd = app.add_subcommand("cancel", "Stop a queued or running job");
  cmd->add_option("job", args->job_id, "job id (from submit)")->required();
  AddServerFlags(cmd, &args->server);
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunCancel(*args); });
}

}  // namespace tuneforge::cli
