// `tuneforge tune`: tune a workload and print its best schedule. Without
// --server it runs the embedded default: the server and one local worker in
// this process, over an in-process channel, with records in ./tuneforge.db.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddTuneCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
