#include "search/annotation/tile_lengths.h"

#include <algorithm>

namespace tuneforge::search {

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    small.push_back(d);
    if (d != n / d) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

int64_t DividingVectorLength(int64_t extent, int vector_lanes) {
  int64_t lanes = 1;
  for (int64_t d : Divisors(extent))
    if (d <= vector_lanes) lanes = d;
  return lanes;
}

int64_t InnermostLimit(const HardwareParams& hw, schedule::IterKind kind, int64_t extent) {
  if (hw.gpu || kind == schedule::IterKind::kSpatial) return hw.max_innermost_split_factor;
  return std::max(extent, hw.max_innermost_split_factor);
}

int64_t InnermostLimit(const HardwareParams& hw, const std::vector<schedule::Step>& steps, size_t split,
                       const schedule::IterNode& node) {
  const int stage = std::get<schedule::SplitStep>(steps[split]).stage;
  for (size_t i = split + 1; i < steps.size(); ++i)
    if (const auto* rfactor = std::get_if<schedule::RfactorStep>(&steps[i]); rfactor && rfactor->stage == stage)
      return InnermostLimit(hw, schedule::IterKind::kSpatial, node.extent);
  return InnermostLimit(hw, node.kind, node.extent);
}

std::vector<int64_t> RandomTileLengths(int64_t extent, int count, int64_t max_innermost,
                                       std::mt19937_64& rng) {
  std::vector<int64_t> lengths(count, 1);
  int64_t left = std::max<int64_t>(extent, 1);
  // Innermost first: it carries the vector / unroll constraint.
  for (int i = count - 1; i >= 0; --i) {
    std::vector<int64_t> choices = Divisors(left);
    if (i == count - 1)
      choices.erase(std::remove_if(choices.begin(), choices.end(),
                                   [&](int64_t d) { return d > max_innermost; }),
                    choices.end());
    int64_t pick = choices[std::uniform_int_distribution<size_t>(0, choices.size() - 1)(rng)];
    lengths[i] = pick;
    left /= pick;
  }
  return lengths;
}

std::optional<std::vector<int64_t>> RandomOverrunTileLengths(int64_t extent, int count, int64_t max_innermost,
                                                             int64_t multiple_of, std::mt19937_64& rng) {
  if (count < 1 || multiple_of < 1) return std::nullopt;
  std::vector<int64_t> choices;
  for (int64_t length = multiple_of; length <= std::min(max_innermost, extent - 1); length += multiple_of) {
    const int64_t tiles = (extent + length - 1) / length;
    if (length > 1 && extent % length != 0 && (tiles * length - extent) * 16 <= extent) choices.push_back(length);
  }
  if (choices.empty()) return std::nullopt;
  const int64_t innermost = choices[std::uniform_int_distribution<size_t>(0, choices.size() - 1)(rng)];
  const int64_t tiles = (extent + innermost - 1) / innermost;
  std::vector<int64_t> lengths =
      count == 1 ? std::vector<int64_t>{} : RandomTileLengths(tiles, count - 1, tiles, rng);
  lengths.push_back(innermost);
  return lengths;
}

}  // namespace tuneforge::search
