#include "absl/strings/str_cat.h"
#include "search/mutations/mutations.h"

namespace tuneforge::search {

const char* MutationName(MutationKind kind) {
  switch (kind) {
    case MutationKind::kTileSize: return "tile_size";
    case MutationKind::kParallel: return "parallel";
    case MutationKind::kAutoUnroll: return "auto_unroll";
    case MutationKind::kComputeLocation: return "compute_location";
  }
  return "unknown";
}

absl::StatusOr<schedule::State> Mutate(MutationKind kind, const schedule::State& state,
                                       const HardwareParams& hw, Rng& rng) {
  // A GPU program has no parallel loop, and its stages stay where the
  // sketch put them (inside the thread loops, shared copies at the tile).
  if (hw.gpu && (kind == MutationKind::kParallel || kind == MutationKind::kComputeLocation))
    return absl::NotFoundError(absl::StrCat(MutationName(kind), " does not apply to a GPU program"));
  switch (kind) {
    case MutationKind::kTileSize: return MutateTileSize(state, hw, rng);
    case MutationKind::kParallel: return MutateParallel(state, rng);
    case MutationKind::kAutoUnroll: return MutateAutoUnroll(state, hw, rng);
    case MutationKind::kComputeLocation: return MutateComputeLocation(state, rng);
  }
  return absl::InternalError("unknown mutation kind");
}

absl::StatusOr<schedule::State> ReplaceStep(const schedule::State& state, size_t index,
                                            schedule::Step step) {
  std::vector<schedule::Step> steps = state.steps();
  steps[index] = std::move(step);
  return schedule::State::Replay(state.original_dag(), steps);
}

absl::StatusOr<schedule::State> ReplaceStepAfter(const schedule::State& before, const schedule::State& state,
                                                 size_t index, schedule::Step step) {
  std::vector<schedule::Step> rest(state.steps().begin() + index, state.steps().end());
  rest[0] = std::move(step);
  return schedule::State::ReplayFrom(before, rest);
}

bool FeedsParallelLoop(const std::vector<schedule::Step>& steps, size_t i) {
  if (i + 1 >= steps.size()) return false;
  const auto* fuse = std::get_if<schedule::FuseStep>(&steps[i]);
  const auto* ann = std::get_if<schedule::AnnotationStep>(&steps[i + 1]);
  return fuse && ann && ann->stage == fuse->stage && ann->iter == 0 && !fuse->iters.empty() &&
         fuse->iters[0] == 0 && ann->annotation == schedule::IterAnnotation::kParallel;
}

bool SplitBefore(const std::vector<schedule::Step>& steps, size_t index, int stage) {
  for (size_t j = 0; j < index; ++j)
    if (std::holds_alternative<schedule::SplitStep>(steps[j]) && schedule::StepStage(steps[j]) == stage)
      return true;
  return false;
}

absl::StatusOr<schedule::State> Prefix(const schedule::State& state, size_t count) {
  std::vector<schedule::Step> steps(state.steps().begin(), state.steps().begin() + count);
  return schedule::State::Replay(state.original_dag(), steps);
}

}  // namespace tuneforge::search
