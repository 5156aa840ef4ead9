// `tuneforge workers`: the registered workers, their device keys, health and
// load.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddWorkersCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
