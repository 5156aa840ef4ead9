#include "client/commands/watch.h"

#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "client/api/jobs_client.h"
#include "client/cli_error.h"
#include "client/job_view.h"
#include "client/job_watch.h"
#include "client/server_args.h"

namespace tuneforge::cli {
namespace {

struct WatchArgs {
  std::string job_id;
  ServerArgs server;
  Output out;
};

int RunWatch(const WatchArgs& args) {
  absl::StatusOr<client::Connection> connection = Connect(args.server);
  if (!connection.ok()) return Fail(args.out, connection.status());
  client::JobsClient jobs(*connection);
  WatchOptions options;
  // stdout holds the one JSON object with --json; the live lines go aside.
  options.progress = args.out.json ? &std::cerr : &std::cout;
  absl::StatusOr<v1::Job> job = WatchToEnd(jobs, args.job_id, options);
  if (!job.ok()) return Fail(args.out, job.status());
  Json result = JobToJson(*job);
  switch (job->state()) {
    case v1::JOB_STATE_FAILED:
      return Fail(args.out, absl::StrCat("job ", job->id(), " failed: ", job->error()), result);
    case v1::JOB_STATE_CANCELLED:
      return Fail(args.out,
                  absl::StrCat("job ", job->id(), " was cancelled after ", job->trials_done(),
                               " trials; its records are kept ('tuneforge best' finds them)"),
                  result);
    default:
      if (job->no_candidate_succeeded())
        return Fail(args.out, NoCandidateSucceeded(*job), result);
      return Succeed(args.out, result, JobToText(*job));
  }
}

}  // namespace

void AddWatchCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<WatchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "watch", "Follow a job to its end: one progress line per update, then the job");
  cmd->add_option("job", args->job_id, "job id (from submit)")->required();
  AddServerFlags(cmd, &args->server);
  cmd->add_flag("--json", args->out.json,
                "the final job as one JSON object on stdout (progress lines on stderr)");
  cmd->callback([args, exit_code] { *exit_code = RunWatch(*args); });
}

}  // namespace tuneforge::cli
