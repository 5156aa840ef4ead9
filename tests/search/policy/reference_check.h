// Compiles a state with the real code generator and compares its outputs
// with the reference interpreter's on random inputs. Used by the search
// tests and the differential fuzz test (tests/fuzz), which digs further into
// a mismatch with the run's buffers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/lower/stmt.h"
#include "common/schedule/state.h"
#include "common/te/ndarray.h"
#include "common/te/workload.h"

namespace tuneforge::search::testing {

// What a check ran, for a caller that wants to look closer at a mismatch.
struct ReferenceRun {
  std::optional<lower::LoweredFunc> func;
  std::vector<te::NDArray> inputs, expected, outputs;
  int mismatched_output = -1;  // first output that differs, -1 when none
};

// "" when the program matches the reference, else what went wrong.
std::string CheckAgainstReference(const te::Workload& w, const schedule::State& state, uint64_t seed,
                                  ReferenceRun* run = nullptr);

// The workload of a spec the test knows to be valid.
te::Workload MustParse(const std::string& spec);

}  // namespace tuneforge::search::testing
