// The computation counts of one execution of a Store: arithmetic of the
// stored value (not of buffer indices: address arithmetic is strength-
// reduced by code generation and only mirrors the layout) plus the guards
// around the store, which run every iteration.
#pragma once

#include <array>

#include "search/features/program_walk.h"
#include "search/features/feature_table.h"

namespace tuneforge::search::features {

// Indexed by StoreFeature - kF_float_mad (float_mad .. select_op).
inline constexpr int kNumOpCounts = kF_select_op - kF_float_mad + 1;
using OpCounts = std::array<double, kNumOpCounts>;

// Per execution of the store; vector nodes count once per lane.
OpCounts CountOps(const StoreSite& site);

// Arithmetic operations in `counts`, a mad counting two: the numerator of
// the arithmetic intensity.
double TotalOps(const OpCounts& counts);

}  // namespace tuneforge::search::features
