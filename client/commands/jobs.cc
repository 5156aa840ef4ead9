#include "client/commands/jobs.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "client/api/jobs_client.h"
#include "client/cli_error.h"
#include "client/job_view.h"
#include "client/server_args.h"

namespace tuneforge::cli {
namespace {

struct JobsArgs {
  std::string state;  // "" = all
  int limit = 100;
  ServerArgs server;
  Output out;
};

absl::StatusOr<v1::JobState> ParseState(const std::string& name) {
  if (name.empty()) return v1::JOB_STATE_UNSPECIFIED;
  for (v1::JobState s : {v1::JOB_STATE_QUEUED, v1::JOB_STATE_RUNNING, v1::JOB_STATE_DONE,
                         v1::JOB_STATE_FAILED, v1::JOB_STATE_CANCELLED})
    if (name == client::JobStateName(s)) return s;
  return absl::InvalidArgumentError(absl::StrCat(
      "--state '", name, "' is not a job state; use queued, running, done, failed or cancelled"));
}

}  // namespace

int ListJobs(const ServerArgs& server, const std::string& state_name, int limit, const Output& out) {
  absl::StatusOr<v1::JobState> state = ParseState(state_name);
  if (!state.ok()) return Fail(out, state.status());
  absl::StatusOr<client::Connection> connection = Connect(server);
  if (!connection.ok()) return Fail(out, connection.status());
  client::JobsClient jobs(*connection);
  absl::StatusOr<std::vector<v1::Job>> list = jobs.List(*state, limit);
  if (!list.ok()) return Fail(out, list.status());
  Json array = Json::array();
  std::string text;
  for (const v1::Job& job : *list) {
    array.push_back(JobToJson(job));
    absl::StrAppend(&text, JobToText(job), "\n");
  }
  if (list->empty()) text = "no jobs\n";
  return Succeed(out, Json{{"jobs", array}}, text);
}

void AddJobsCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<JobsArgs>();
  CLI::App* cmd = app.add_subcommand("jobs", "The server's jobs, newest first");
  cmd->add_option("--state", args->state, "only jobs in this state (queued, running, done, ...)");
  cmd->add_option("--limit", args->limit, "at most this many (default 100)");
  AddServerFlags(cmd, &args->server);
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout: {\"jobs\": [...]}");
  cmd->callback([args, exit_code] {
    *exit_code = ListJobs(args->server, args->state, args->limit, args->out);
  });
}

}  // namespace tuneforge::cli
