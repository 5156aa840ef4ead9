// Fill tile sizes: every split of the sketch gets random lengths, chosen
// while replaying so that each split sees the extent its loop has then.
// A split whose lengths the sketch rule set (none is the placeholder 1, e.g.
// simplify_const_tensor's vector level) keeps them; mutation may change
// them later.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "search/annotation/annotation.h"
#include "search/annotation/tile_lengths.h"

namespace tuneforge::search {

absl::StatusOr<schedule::State> FillTileSizes(const schedule::State& sketch, const HardwareParams& hw,
                                              Rng& rng) {
  schedule::State state(sketch.original_dag());
  const std::vector<schedule::Step>& steps = sketch.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    schedule::Step filled = steps[i];
    auto* split = std::get_if<schedule::SplitStep>(&filled);
    if (split && std::find(split->lengths.begin(), split->lengths.end(), 1) != split->lengths.end()) {
      const schedule::IterNode& node = state.stage(split->stage).iter_node(split->iter);
      split->lengths = RandomTileLengths(node.extent, static_cast<int>(split->lengths.size()),
                                         InnermostLimit(hw, steps, i, node), rng);
    }
    if (absl::Status s = state.Apply(filled); !s.ok())
      return absl::InternalError(absl::StrCat("filling tile sizes: ", s.message()));
  }
  return state;
}

}  // namespace tuneforge::search
