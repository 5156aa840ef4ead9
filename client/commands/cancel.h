// `tuneforge cancel JOB`: stop a queued or running job.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddCancelCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
