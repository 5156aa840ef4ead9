// How the ansor policy spreads a round's measurements over a workload's
// sketches: a closed set, named on the command line and in job specs.
//
//   uniform  Ansor's: samples from every sketch alike, then the cost model's
//            scores decide; in practice the evolutionary search then spends
//            nearly every trial on the sketch whose first random samples
//            measured best.
//   learned  a bandit over sketches (sketch_bandit.h): each round is shared
//            among them by UCB1 on their best measured speed, and each share
//            is searched by an evolution of that sketch alone, so a sketch
//            whose random samples were unlucky still gets evolved programs
//            measured before it is left behind.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace tuneforge::search {

enum class SketchSelection { kUniform, kLearned };

// "uniform" (also "") or "learned"; the error lists both.
absl::StatusOr<SketchSelection> ParseSketchSelection(const std::string& name);
const char* SketchSelectionName(SketchSelection selection);

}  // namespace tuneforge::search
