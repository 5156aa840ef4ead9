// `tuneforge status JOB`: a job's state, trials and best.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddStatusCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
