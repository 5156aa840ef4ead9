// `tuneforge export`: records as JSON lines, one record per line.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddExportCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
