// `tuneforge show`: the DAG, workload key, FLOPs and the lowered loop nest
// (naive, and scheduled when --schedule is given); optionally the LLVM IR
// or assembly for a target.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

// Adds the subcommand; `*exit_code` receives its result when it runs.
void AddShowCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
