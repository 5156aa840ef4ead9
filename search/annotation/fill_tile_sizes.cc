// Fill tile sizes: every split of the sketch gets random lengths, chosen
// while replaying so that each split sees the extent its loop has then.
// A spatial split's innermost tile may also overrun its loop
// (hw.overrun_tile_share of the draws): a tile that does not divide it, its
// last one computing past the end (RandomOverrunTileLengths).
// A split whose lengths the sketch rule set (none is the placeholder 1, e.g.
// simplify_const_tensor's vector level) keeps them; mutation may change
// them later.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "search/annotation/annotation.h"
#include "search/annotation/tile_lengths.h"

namespace tuneforge::search {
namespace {

// Register tiles are a few rows of vectors: an overrunning tile of another
// axis stays within this many (oneDNN's AVX2 and AVX-512 kernels: 6 to 14).
constexpr int64_t kMaxOverrunRows = 16;

}  // namespace

absl::StatusOr<schedule::State> FillTileSizes(const schedule::State& sketch, const HardwareParams& hw,
                                              Rng& rng) {
  schedule::State state(sketch.original_dag());
  const std::vector<schedule::Step>& steps = sketch.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    schedule::Step filled = steps[i];
    auto* split = std::get_if<schedule::SplitStep>(&filled);
    if (split && std::find(split->lengths.begin(), split->lengths.end(), 1) != split->lengths.end()) {
      const schedule::Stage& stage = state.stage(split->stage);
      const schedule::IterNode& node = stage.iter_node(split->iter);
      const int count = static_cast<int>(split->lengths.size());
      const int64_t limit = InnermostLimit(hw, steps, i, node);
      std::optional<std::vector<int64_t>> overrun;
      if (node.kind == schedule::IterKind::kSpatial && hw.overrun_tile_share > 0 &&
          std::bernoulli_distribution(hw.overrun_tile_share)(rng)) {
        // The op's last axis is the one vectorized: whole vectors of it.
        const bool vector_axis = stage.iters[split->iter].node == stage.num_spatial_axes() - 1;
        overrun = vector_axis ? RandomOverrunTileLengths(node.extent, count, limit, hw.vector_lanes, rng)
                              : RandomOverrunTileLengths(node.extent, count, std::min(limit, kMaxOverrunRows), 1, rng);
      }
      split->lengths = overrun ? *std::move(overrun) : RandomTileLengths(node.extent, count, limit, rng);
    }
    if (absl::Status s = state.Apply(filled); !s.ok())
      return absl::InternalError(absl::StrCat("filling tile sizes: ", s.message()));
  }
  return state;
}

}  // namespace tuneforge::search
