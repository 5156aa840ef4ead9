// Parallel-granularity mutation: the fuse that feeds a parallel loop takes
// more or fewer of the outer loops (annotation puts that fuse and its
// parallel annotation last among a stage's steps, so no later step's loop
// index moves).
#include "search/annotation/annotation.h"
#include "search/mutations/mutations.h"

namespace tuneforge::search {

absl::StatusOr<schedule::State> MutateParallel(const schedule::State& state, Rng& rng) {
  std::vector<size_t> candidates;  // fuse steps of loops 0..k-1 followed by parallel on loop 0
  const auto& steps = state.steps();
  for (size_t i = 0; i + 1 < steps.size(); ++i)
    if (FeedsParallelLoop(steps, i)) candidates.push_back(i);
  if (candidates.empty()) return absl::NotFoundError("no parallel loop to mutate");
  size_t index = candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng)];
  schedule::FuseStep fuse = std::get<schedule::FuseStep>(steps[index]);
  absl::StatusOr<schedule::State> before = Prefix(state, index);
  if (!before.ok()) return before.status();
  const int max_fuse = MaxParallelFuse(*before, fuse.stage);
  const int now = static_cast<int>(fuse.iters.size());
  if (max_fuse < 2) return absl::NotFoundError("the parallel loop cannot fuse more or fewer loops");
  int pick = std::uniform_int_distribution<int>(1, max_fuse - 1)(rng);
  if (pick >= now) ++pick;
  fuse.iters.clear();
  for (int i = 0; i < pick; ++i) fuse.iters.push_back(i);
  return ReplaceStepAfter(*before, state, index, fuse);
}

}  // namespace tuneforge::search
