// `tuneforge import F.jsonl`: store exported records in a database file or a
// server.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddImportCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
