// Random factorizations for split lengths.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "common/schedule/state.h"
#include "search/search_task.h"

namespace tuneforge::search {

// The longest innermost length a split of `kind` may get on `hw`. A spatial
// split's innermost tile becomes a vector or an unrolled register tile, so
// it stays within hw.max_innermost_split_factor (Ansor's 64), as does every
// split of a GPU program. A CPU reduction's innermost level is a plain loop
// around the register tile: the longer it is, the longer the accumulators
// stay in registers before they are stored and reloaded, and Ansor's cap cut
// matmul 1024^3 off its fastest programs (one thread: k.1 = 512 ran 1.09x
// the tuning's best, k.1 = 32, and 1.04x the best k.1 <= 64 tried by hand;
// bench/search/results/README.md): no cap there.
// A reduction split that a later rfactor step factors counts as spatial:
// its innermost part becomes a loop of partial sums, vectorized.
int64_t InnermostLimit(const HardwareParams& hw, schedule::IterKind kind, int64_t extent);
// InnermostLimit of steps[split] (a SplitStep) on the loop `node` it splits.
int64_t InnermostLimit(const HardwareParams& hw, const std::vector<schedule::Step>& steps, size_t split,
                       const schedule::IterNode& node);

// All divisors of n (n >= 1), ascending.
std::vector<int64_t> Divisors(int64_t n);
// The longest vector of at most `vector_lanes` that divides `extent`.
int64_t DividingVectorLength(int64_t extent, int vector_lanes);
// `count` inner lengths (outermost first, innermost last) whose product
// divides `extent`, each a random divisor of what is left, the innermost at
// most `max_innermost`.
std::vector<int64_t> RandomTileLengths(int64_t extent, int count, int64_t max_innermost,
                                       std::mt19937_64& rng);

// Lengths as RandomTileLengths, but with an innermost tile that does not
// divide `extent` (the last tile runs past the end): a multiple of
// `multiple_of` of at most `max_innermost`, wasting at most a sixteenth of
// the loop, the outer levels dividing the number of tiles. The register
// tiles divisors cannot give: 6 rows of 1,024 with two AVX2 vectors each
// (oneDNN's AVX2 kernel), three vectors of 1,000 or 1,024 columns. nullopt
// where no length qualifies.
std::optional<std::vector<int64_t>> RandomOverrunTileLengths(int64_t extent, int count, int64_t max_innermost,
                                                             int64_t multiple_of, std::mt19937_64& rng);

}  // namespace tuneforge::search
