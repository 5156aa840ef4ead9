// Runs an outside tool (the C++ driver that links a compiled model) and
// waits for it; its output goes to a log file so an error can quote it.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tuneforge::graph {

// argv[0] is looked up on PATH. Errors: the tool is missing (NotFound,
// naming it), or it exits non-zero (the log's last lines in the message).
absl::Status RunTool(const std::vector<std::string>& argv, const std::string& log_path);

}  // namespace tuneforge::graph
