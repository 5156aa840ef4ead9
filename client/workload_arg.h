// The workload a command works on: a spec ("matmul:M=64,N=64,K=64"), a
// compute-definition file (--def FILE), or the workload a schedule file
// names. A schedule must belong to the workload it is used with.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/schedule/schedule.h"
#include "common/te/workload.h"
#include "proto/tuneforge.pb.h"

namespace tuneforge::cli {

struct WorkloadArgs {
  std::string spec;           // positional, may be empty
  std::string def_file;       // --def
  std::string schedule_file;  // --schedule, may be empty
};

struct ResolvedWorkload {
  te::Workload workload;
  std::optional<schedule::Schedule> schedule;
};

// Errors: nothing names a workload, both a spec and --def, an unknown op or
// bad file, a schedule whose workload key differs from the workload's.
absl::StatusOr<ResolvedWorkload> ResolveWorkload(const WorkloadArgs& args);

// A workload as the API carries it, checked here first: a spec as written,
// or a definition's text (from --def FILE or a spec "def:FILE", read here
// because the server cannot see the client's files), named by the file stem.
struct ApiWorkload {
  ::tuneforge::v1::Workload message;
  te::Workload parsed;  // for its key and FLOPs
};
// Exactly one of `spec` and `def_file` is non-empty.
absl::StatusOr<ApiWorkload> ResolveApiWorkload(const std::string& spec, const std::string& def_file);

}  // namespace tuneforge::cli
