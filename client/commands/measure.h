// `tuneforge measure`: compile a schedule (or the naive program), check it
// against the reference in the sandboxed runner, and time it.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddMeasureCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
