// Programs made up for cost model tests: 1-4 store rows of uniform random
// features each, and a label that is a known function of the rows (summed
// over rows, as the cost model assumes) plus a little noise, normalized so
// the best program of the set scores 1.
#pragma once

#include <cstdint>
#include <vector>

#include "search/features/features.h"

namespace tuneforge::search::testing {

struct SyntheticSet {
  std::vector<ProgramFeatures> programs;
  std::vector<float> labels;
  std::vector<const ProgramFeatures*> pointers() const;
};

// The hidden per-row value the labels are made of (always > 0).
double HiddenRowValue(const float* row);

SyntheticSet MakeSyntheticSet(int count, int num_features, uint64_t seed, double relative_noise = 0.02);

// A program with `rows` rows of `num_features` features, all `value`.
ProgramFeatures UniformProgram(int rows, int num_features, float value);

// Fraction of pairs with different labels that `scores` order the same way
// (a tie in scores counts half); 0.5 is chance.
double PairwiseRankingAccuracy(const std::vector<float>& scores, const std::vector<float>& labels);

}  // namespace tuneforge::search::testing
