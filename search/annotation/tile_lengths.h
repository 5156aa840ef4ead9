// Random factorizations for split lengths.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tuneforge::search {

// All divisors of n (n >= 1), ascending.
std::vector<int64_t> Divisors(int64_t n);
// `count` inner lengths (outermost first, innermost last) whose product
// divides `extent`, each a random divisor of what is left, the innermost at
// most `max_innermost`.
std::vector<int64_t> RandomTileLengths(int64_t extent, int count, int64_t max_innermost,
                                       std::mt19937_64& rng);

}  // namespace tuneforge::search
