// `tuneforge submit`: send a tuning job to a cluster and print it (queued).
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddSubmitCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
