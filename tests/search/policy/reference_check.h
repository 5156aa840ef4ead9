// Compiles a state with the real code generator and compares its outputs
// with the reference interpreter's on random inputs.
#pragma once

#include <cstdint>
#include <string>

#include "common/schedule/state.h"
#include "common/te/workload.h"

namespace tuneforge::search::testing {

// "" when the program matches the reference, else what went wrong.
std::string CheckAgainstReference(const te::Workload& w, const schedule::State& state, uint64_t seed);

// The workload of a spec the test knows to be valid.
te::Workload MustParse(const std::string& spec);

}  // namespace tuneforge::search::testing
