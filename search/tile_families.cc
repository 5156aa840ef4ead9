#include "search/tile_families.h"

#include <algorithm>
#include <cmath>
#include <variant>

#include "common/schedule/state.h"

namespace tuneforge::search {

uint64_t TileFamilyOf(const std::vector<schedule::Step>& steps) {
  std::vector<schedule::Step> splits;
  for (const schedule::Step& step : steps)
    if (std::holds_alternative<schedule::SplitStep>(step)) splits.push_back(step);
  return schedule::HashSteps(splits);
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
      const uint64_t family = quota.active() ? family_of(next) : 0;  // no quota: no hashing
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
