// `tuneforge watch JOB`: follow a job to its end, one progress line per
// update.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddWatchCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
