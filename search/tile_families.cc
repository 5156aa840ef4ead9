#include "search/tile_families.h"

#include <algorithm>
#include <cmath>
#include <variant>

namespace tuneforge::search {
namespace {

// FNV-1a over 64-bit words.
constexpr uint64_t kOffset = 1469598103934665603ull;
constexpr uint64_t kPrime = 1099511628211ull;

uint64_t Mix(uint64_t h, uint64_t word) { return (h ^ word) * kPrime; }

}  // namespace

uint64_t TileFamilyOf(const std::vector<schedule::Step>& steps) {
  uint64_t h = kOffset;
  for (const schedule::Step& step : steps) {
    const auto* split = std::get_if<schedule::SplitStep>(&step);
    if (!split) continue;
    h = Mix(Mix(h, static_cast<uint64_t>(split->stage)), static_cast<uint64_t>(split->iter));
    h = Mix(h, split->lengths.size());
    for (int64_t length : split->lengths) h = Mix(h, static_cast<uint64_t>(length));
  }
  return h;
}

FamilyQuota::FamilyQuota(int want, double max_share)
    : cap_(max_share >= 1 || want <= 0 ? 0 : std::max(1, static_cast<int>(std::lround(want * max_share)))) {}

bool FamilyQuota::Full(uint64_t family) const {
  if (cap_ == 0) return false;
  auto it = taken_.find(family);
  return it != taken_.end() && it->second >= cap_;
}

int TakeRankedWithQuota(size_t count, int want, double max_family_share,
                        const std::function<uint64_t(size_t)>& family_of,
                        const std::function<bool(size_t)>& take,
                        const std::function<void(size_t, size_t)>& prepare) {
  FamilyQuota quota(want, max_family_share);
  std::vector<size_t> over_quota;  // best first
  int taken = 0;
  size_t next = 0;
  while (taken < want && next < count) {
    // A stretch of about what is still wanted, a quarter more for refusals.
    const size_t missing = static_cast<size_t>(want - taken);
    const size_t end = std::min(count, next + missing + missing / 4 + 1);
    prepare(next, end);
    for (; next < end && taken < want; ++next) {
      const uint64_t family = family_of(next);
      if (quota.Full(family)) {
        over_quota.push_back(next);
      } else if (take(next)) {
        ++taken;
        quota.Taken(family);
      }
    }
  }
  for (size_t i = 0; i < over_quota.size() && taken < want; ++i) taken += take(over_quota[i]) ? 1 : 0;
  return taken;
}

}  // namespace tuneforge::search
