// Mutations and crossover of the evolutionary search (Ansor section 5.2).
// Each edits one step of a complete program (sampled or measured) and
// replays the whole step list, so a result is always a valid state; an
// error means nothing was found to change or the edit did not replay
// (the search then simply tries another).
#pragma once

#include <functional>
#include <random>

#include "absl/status/statusor.h"
#include "common/schedule/state.h"
#include "search/search_task.h"

namespace tuneforge::search {

using Rng = std::mt19937_64;

// The closed set of mutations, each in its own file.
enum class MutationKind { kTileSize, kParallel, kAutoUnroll, kComputeLocation };
inline constexpr int kNumMutationKinds = 4;
const char* MutationName(MutationKind kind);

// Moves a factor between two levels of one split (the innermost stays
// within InnermostLimit, annotation/tile_lengths.h).
absl::StatusOr<schedule::State> MutateTileSize(const schedule::State& state, const HardwareParams& hw,
                                               Rng& rng);
// Fuses a different number of outer loops into a parallel loop.
absl::StatusOr<schedule::State> MutateParallel(const schedule::State& state, Rng& rng);
// Picks another auto_unroll_max_step from hw.auto_unroll_configs.
absl::StatusOr<schedule::State> MutateAutoUnroll(const schedule::State& state, const HardwareParams& hw,
                                                 Rng& rng);
// Moves a stage placed by annotation into another loop of its consumer.
absl::StatusOr<schedule::State> MutateComputeLocation(const schedule::State& state, Rng& rng);

absl::StatusOr<schedule::State> Mutate(MutationKind kind, const schedule::State& state,
                                       const HardwareParams& hw, Rng& rng);

// A child of two programs of the same sketch (step lists of the same shape:
// equal kinds on equal stages): each stage's steps come from `b` when
// take_from_b(stage) and from `a` otherwise. An error when the shapes differ
// or the child does not replay.
absl::StatusOr<schedule::State> Crossover(const schedule::State& a, const schedule::State& b,
                                          const std::function<bool(int stage)>& take_from_b);

// ---- For the mutation files --------------------------------------------
// `state`'s steps with step `index` replaced, replayed from the start.
absl::StatusOr<schedule::State> ReplaceStep(const schedule::State& state, size_t index,
                                            schedule::Step step);
// The same, replayed from `before` = Prefix(state, index) (which the
// mutation needed anyway): the prefix is not replayed twice.
absl::StatusOr<schedule::State> ReplaceStepAfter(const schedule::State& before, const schedule::State& state,
                                                 size_t index, schedule::Step step);
// The state after the first `count` steps of `state`.
absl::StatusOr<schedule::State> Prefix(const schedule::State& state, size_t count);
// Step `i` is the fuse of loops 0..k-1 that the next step runs in parallel
// (what the parallel-granularity mutation and Droplet's space change).
bool FeedsParallelLoop(const std::vector<schedule::Step>& steps, size_t i);
// A step before `index` splits `stage`: such a stage keeps the place its
// sketch gave it (compute-location mutation, Droplet's space).
bool SplitBefore(const std::vector<schedule::Step>& steps, size_t index, int stage);
// Indices of the steps of type T.
template <class T>
std::vector<size_t> StepsOfKind(const schedule::State& state) {
  std::vector<size_t> out;
  for (size_t i = 0; i < state.steps().size(); ++i)
    if (std::holds_alternative<T>(state.steps()[i])) out.push_back(i);
  return out;
}

}  // namespace tuneforge::search
