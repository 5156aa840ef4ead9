// Parses compute-definition text into a Program (ast.h). Only syntax is
// checked here; every error names the line, the column, what was expected
// and what was found.
#pragma once

#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "common/te/definition/ast.h"

namespace tuneforge::te::definition {

absl::StatusOr<Program> Parse(absl::string_view text);

}  // namespace tuneforge::te::definition
