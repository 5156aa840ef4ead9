#include "search/droplet/neighbours.h"

#include <numeric>

#include "search/features/features.h"

namespace tuneforge::search {

NeighbourPrograms FreshNeighbours(const ProgramSpace& space, const SpacePoint& center, int step, int limit,
                                  const HardwareParams& hw, const absl::flat_hash_set<uint64_t>& seen, Rng& rng) {
  NeighbourPrograms out;
  absl::flat_hash_set<uint64_t> hashes;
  for (const SpacePoint& p : Neighbours(space, center, step, limit, rng)) {
    absl::StatusOr<schedule::State> s = space.At(p);
    if (!s.ok() || seen.contains(s->Hash()) || !hashes.insert(s->Hash()).second) continue;
    if (hw.gpu && !WithinGpuLimits(*s, hw)) continue;  // over a block's limits
    if (!WithinRegisterFile(*s, hw)) continue;         // accumulators spill
    int moved = 0;
    for (size_t k = 0; k < p.size(); ++k) moved += p[k] != center[k];
    (moved == 1 ? out.single : out.several).push_back(*std::move(s));
  }
  return out;
}

std::vector<schedule::State> RankByModel(std::vector<schedule::State> states, const SharedCostModel& model,
                                         int64_t* scored) {
  if (scored) *scored = 0;
  if (states.empty()) return {};
  std::vector<absl::StatusOr<ProgramFeatures>> features = ExtractFeaturesBatch(states, 0);
  std::vector<schedule::State> valid;
  std::vector<const ProgramFeatures*> ptrs;
  for (size_t i = 0; i < states.size(); ++i)
    if (features[i].ok()) {
      valid.push_back(std::move(states[i]));
      ptrs.push_back(&*features[i]);
    }
  std::vector<size_t> order(valid.size());
  std::iota(order.begin(), order.end(), 0);
  if (model.trained()) {
    if (scored) *scored = static_cast<int64_t>(ptrs.size());
    std::vector<float> scores = model.Predict(ptrs);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  }
  std::vector<schedule::State> out;
  for (size_t i : order) out.push_back(std::move(valid[i]));
  return out;
}

}  // namespace tuneforge::search
