// How the ansor policy spreads a round's measurements over a workload's
// sketches: a closed set, named on the command line and in job specs.
//
//   uniform  Ansor's: samples from every sketch alike, then the cost model's
//            scores decide; in practice the evolutionary search then spends
//            nearly every trial on the sketch whose first random samples
//            measured best.
//   learned  a bandit over sketches (sketch_bandit.h): successive halving
//            gives every sketch its own evolutions and measurements, then
//            the better half twice as many, until one sketch is left; a
//            sketch whose random samples were unlucky is not left behind
//            before its evolved programs are measured.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace tuneforge::search {

enum class SketchSelection { kUniform, kLearned };

// "uniform" (also "") or "learned"; the error lists both.
absl::StatusOr<SketchSelection> ParseSketchSelection(const std::string& name);
const char* SketchSelectionName(SketchSelection selection);

}  // namespace tuneforge::search
