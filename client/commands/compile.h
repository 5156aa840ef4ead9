// `tuneforge compile --model F.onnx --out DIR`: the model as a shared
// library (the best kernels, the weights, a static memory plan) and a header,
// for C programs that run it without tuneforge.
#pragma once

#include "CLI/CLI.hpp"

namespace tuneforge::cli {

void AddCompileCommand(CLI::App& app, int* exit_code);

}  // namespace tuneforge::cli
