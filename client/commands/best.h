// `tuneforge best WORKLOAD`: the best correct record and its schedule, from
// a database file or a server.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddBestCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
