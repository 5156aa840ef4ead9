// How the evolutionary search picks a mutation rule for a parent: a closed
// set, named on the command line and in job specs.
//
//   fixed    Ansor's: fixed weights {tile size 0.6, parallel 0.15,
//            auto-unroll 0.15, compute location 0.1} for every parent.
//   learned  a predictor (mutation_predictor.h), trained online on this
//            target's evolutions and measurements, says which rule is likely
//            to improve this parent; the weights follow its odds.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace tuneforge::search {

enum class MutationChoice { kFixed, kLearned };

// "fixed" (also "") or "learned"; the error lists both.
absl::StatusOr<MutationChoice> ParseMutationChoice(const std::string& name);
const char* MutationChoiceName(MutationChoice choice);

}  // namespace tuneforge::search
