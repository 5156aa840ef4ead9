// `tuneforge run --model F.onnx`: the whole model with the best kernels of
// the record store; checks the outputs and reports the latency.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddRunCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
