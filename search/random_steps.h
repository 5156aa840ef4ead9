// Random schedules: step sequences built by proposing random steps of every
// kind against the current state and keeping those the state accepts. The
// random-search policy samples with it, and so does the differential fuzz
// test (tests/fuzz), which relies on it covering every step kind.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/schedule/state.h"

namespace tuneforge::search {

inline constexpr int kNumStepKinds = std::variant_size_v<schedule::Step>;

struct RandomScheduleStats {
  std::array<int64_t, kNumStepKinds> proposed{};
  std::array<int64_t, kNumStepKinds> accepted{};
};

// Proposes `attempts` random steps (CPU-runnable annotations only) and
// returns the state with the accepted ones applied.
schedule::State RandomSchedule(const te::ComputeDagPtr& dag, std::mt19937_64& rng, int attempts,
                               RandomScheduleStats* stats);

}  // namespace tuneforge::search
