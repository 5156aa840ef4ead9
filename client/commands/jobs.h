// `tuneforge jobs`: the server's jobs, newest first.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "client/cli_error.h"
#include "client/server_args.h"

namespace tuneforge::cli {

void AddJobsCommand(CLI::App& app, int* exit_code);

// What `jobs` prints (also `status` without a job id): jobs in `state`
// ("" = all), at most `limit`.
int ListJobs(const ServerArgs& server, const std::string& state, int limit, const Output& out);

}  // namespace tuneforge::cli
