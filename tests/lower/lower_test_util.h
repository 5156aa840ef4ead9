// Helpers for lowering tests: build a workload's state from steps, lower
// it, run it with the loop interpreter and compare with the reference
// interpreter on the same random inputs.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/te/compute_dag.h"

namespace tuneforge::lower::testing {

te::ComputeDagPtr Dag(const std::string& spec);

// Lowers `state`, runs it and the reference; returns a message describing
// the first mismatch or error, or "" when they agree.
std::string CheckAgainstReference(const schedule::State& state, const LowerOptions& options = {});

}  // namespace tuneforge::lower::testing
