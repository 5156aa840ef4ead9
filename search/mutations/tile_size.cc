// Tile-size mutation: one factor of one split level moves to another level
// (the outer, implicit level included when the lengths divide the extent),
// keeping the product of all levels equal to the loop's extent.
#include "absl/strings/str_cat.h"
#include "search/annotation/tile_lengths.h"
#include "search/mutations/mutations.h"

namespace tuneforge::search {

absl::StatusOr<schedule::State> MutateTileSize(const schedule::State& state, const HardwareParams& hw,
                                               Rng& rng) {
  std::vector<size_t> splits = StepsOfKind<schedule::SplitStep>(state);
  if (splits.empty()) return absl::NotFoundError("no split to mutate");
  for (int attempt = 0; attempt < 8; ++attempt) {
    size_t index = splits[std::uniform_int_distribution<size_t>(0, splits.size() - 1)(rng)];
    schedule::SplitStep split = std::get<schedule::SplitStep>(state.steps()[index]);
    absl::StatusOr<schedule::State> before = Prefix(state, index);
    if (!before.ok()) return before.status();
    const schedule::IterNode& node = before->stage(split.stage).iter_node(split.iter);
    const int64_t extent = node.extent;
    int64_t product = 1;
    for (int64_t l : split.lengths) product *= l;
    // parts[0] is the implicit outer level when the split divides evenly.
    std::vector<int64_t> parts;
    const bool outer = split.inner_to_outer && extent % product == 0;
    if (outer) parts.push_back(extent / product);
    parts.insert(parts.end(), split.lengths.begin(), split.lengths.end());
    if (parts.size() < 2) continue;
    std::vector<size_t> sources;
    for (size_t p = 0; p < parts.size(); ++p)
      if (parts[p] > 1) sources.push_back(p);
    if (sources.empty()) continue;
    size_t src = sources[std::uniform_int_distribution<size_t>(0, sources.size() - 1)(rng)];
    size_t dst = std::uniform_int_distribution<size_t>(0, parts.size() - 2)(rng);
    if (dst >= src) ++dst;
    std::vector<int64_t> divisors = Divisors(parts[src]);
    int64_t factor = divisors[std::uniform_int_distribution<size_t>(1, divisors.size() - 1)(rng)];
    parts[src] /= factor;
    parts[dst] *= factor;
    if (split.inner_to_outer && parts.back() > InnermostLimit(hw, state.steps(), index, node)) continue;
    split.lengths.assign(parts.begin() + (outer ? 1 : 0), parts.end());
    absl::StatusOr<schedule::State> out = ReplaceStepAfter(*before, state, index, split);
    if (out.ok()) return out;
  }
  return absl::NotFoundError("no tile-size change replayed");
}

}  // namespace tuneforge::search
