// How every command reports: a result object printed as JSON (--json) or
// as text, and errors as one line naming the problem and the fix, with a
// non-zero exit code.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace tuneforge::cli {

using Json = nlohmann::ordered_json;

struct Output {
  bool json = false;
};

// Prints `result` (as JSON, or `text`) and returns 0.
int Succeed(const Output& out, const Json& result, const std::string& text);
// Prints "error: <message>" to stderr (and {"error": message} on stdout with
// --json) and returns 1. `partial` adds fields to the JSON error object.
int Fail(const Output& out, const std::string& message, Json partial = Json::object());
int Fail(const Output& out, const absl::Status& status, Json partial = Json::object());

}  // namespace tuneforge::cli
