// Builds the tensors of a parsed definition (ast.h) statement by statement,
// then picks the outputs: the tensors listed on `output` lines, or else every
// computed tensor that no other tensor reads.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/definition/ast.h"
#include "common/te/tensor.h"

namespace tuneforge::te::definition {

// `tag` becomes the tag of every computed tensor (the definition's name).
absl::StatusOr<std::vector<Tensor>> BuildProgram(const Program& program, const std::string& tag);

}  // namespace tuneforge::te::definition
