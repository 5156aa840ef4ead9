// What to tune or measure, as the user gave it: a workload spec
// ("matmul:M=1024,N=1024,K=1024") or the text of a compute definition. The
// one type for this on both sides of the seam: the server's jobs and tasks,
// the worker, and the builder processes.
#pragma once

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "common/te/workload.h"

namespace tuneforge::measure {

struct WorkloadSource {
  enum class Kind { kUnset, kSpec, kDefinition };
  Kind kind = Kind::kUnset;
  std::string text;  // the spec, or the definition's text (not its path)
  std::string name;  // a definition's name ("conv_custom"); unused for specs

  static WorkloadSource Spec(std::string spec) { return {Kind::kSpec, std::move(spec), ""}; }
  static WorkloadSource Definition(std::string text, std::string name) {
    return {Kind::kDefinition, std::move(text), std::move(name)};
  }
  bool is_definition() const { return kind == Kind::kDefinition; }
  bool operator==(const WorkloadSource&) const = default;
};

// The workload the source names; an unset one is INVALID_ARGUMENT.
absl::StatusOr<te::Workload> ParseWorkloadSource(const WorkloadSource& source);

}  // namespace tuneforge::measure
