// The random-search baseline: each candidate is a fresh random valid step
// sequence (search/random_steps.h); duplicates of anything proposed or
// measured before are skipped, by state hash and by the code they lower to
// (lowered_programs.h).
#pragma once

#include <memory>

#include "search/search_policy.h"

namespace tuneforge::search {

std::unique_ptr<SearchPolicy> MakeRandomSearch(te::ComputeDagPtr dag, uint64_t seed);

}  // namespace tuneforge::search
